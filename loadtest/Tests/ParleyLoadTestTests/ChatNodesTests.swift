import Testing
@testable import ParleyLoadTest

@Suite("Chat across nodes: each node's CPU, the database's and the generator's in the report")
struct ChatNodesTests {
    @Test func readsPidParentAndTicksFromProcStat() throws {
        // A postgres backend: its name holds spaces and parentheses; fields 14–17 are 70 40 3 2.
        let line = "4242 (postgres: postgres (x) 127.0.0.1(5555) idle) S 4100 4100 4100 0 -1 4194304 900 0 0 0 70 40 3 2 20 0 1 0 1234 1000000 500 18446744073709551615\n"
        let stat = try #require(ProcessTreeCPU.parse(stat: line))
        #expect(stat == .init(pid: 4242, parent: 4100, own: 110, reapedChildren: 5))
        #expect(ProcessTreeCPU.parse(stat: "not a stat line") == nil)
        #expect(ProcessTreeCPU.parse(stat: "12 (short) S 1 2") == nil)
    }

    @Test func aTreeIsTheRootItsReapedChildrenAndItsLiveChildren() {
        let stats: [ProcessTreeCPU.Stat] = [
            .init(pid: 100, parent: 1, own: 10, reapedChildren: 7),   // the postmaster
            .init(pid: 101, parent: 100, own: 200, reapedChildren: 0),  // backends
            .init(pid: 102, parent: 100, own: 300, reapedChildren: 0),
            .init(pid: 103, parent: 102, own: 1_000, reapedChildren: 0),  // a grandchild: not counted
            .init(pid: 200, parent: 1, own: 5_000, reapedChildren: 0),   // another process
        ]
        #expect(ProcessTreeCPU.ticks(root: 100, stats: stats) == 517)
        #expect(ProcessTreeCPU.ticks(root: 999, stats: stats) == nil)
    }

    @Test func watchTakesNameEqualsPid() {
        #expect(ProcessTreeCPU(argument: "postgresql=4100") == ProcessTreeCPU(name: "postgresql", pid: 4100))
        #expect(ProcessTreeCPU(argument: "postgresql") == nil)
        #expect(ProcessTreeCPU(argument: "=12") == nil)
        #expect(ProcessTreeCPU(argument: "db=x") == nil)
    }

    @Test func reportGivesEachNodeTheDatabaseAndTheGenerator() {
        let start = ContinuousClock.now
        var timeline = ChatTimeline()
        timeline.samples = [
            .init(at: start + .seconds(1), nodes: [1, 2], resident: [10 << 20, 20 << 20], generator: 0, watched: [10]),
            .init(at: start + .seconds(11), nodes: [4, 7], resident: [30 << 20, 40 << 20], generator: 5, watched: [13]),
        ]
        var snapshot = ChatCollector.Snapshot()
        snapshot.sent = 10
        snapshot.acknowledged = 10
        snapshot.expectedDeliveries = 25
        snapshot.deliveries = 24
        let report = ChatReport(options: ChatOptions(), users: 5, privateDialogs: 2, groupDialogs: 1, snapshot: snapshot,
                                start: start, sendingSeconds: 10, timeline: timeline,
                                nodes: ["http://a:1", "http://b:2"], watched: ["postgresql"])
        #expect(report.serverCPUPercent == 80)
        #expect(report.nodes.map(\.users) == [3, 2])
        #expect(report.nodes.map(\.cpuPercent) == [30, 50])
        #expect(report.nodes.map(\.residentBytes) == [30 << 20, 40 << 20])
        #expect(report.processes.first?.cpuPercent == 30)
        #expect(report.generatorCPUPercent == 50)
        let table = report.table
        #expect(table.contains("24 of 25 expected, 1 missing"))
        #expect(table.contains("server CPU                   80.0 % of a core (2 nodes)"))
        #expect(table.contains("node 2 http://b:2  2 users  50.0 % of a core, 40 MiB resident"))
        #expect(table.contains("postgresql CPU               30.0 % of a core"))
        #expect(table.contains("generator CPU                50.0 % of a core"))
    }

    @Test func aNodeThatWasNotReadHasNoFigure() {
        let start = ContinuousClock.now
        var timeline = ChatTimeline()
        timeline.samples = [
            .init(at: start, nodes: [1, nil], resident: [nil, nil], generator: nil, watched: []),
            .init(at: start + .seconds(2), nodes: [2, 3], resident: [nil, nil], generator: 1, watched: []),
        ]
        let report = ChatReport(options: ChatOptions(), users: 2, privateDialogs: 1, groupDialogs: 0, snapshot: .init(),
                                start: start, sendingSeconds: 2, timeline: timeline, nodes: ["a", "b"])
        #expect(report.serverCPUPercent == nil)
        #expect(report.nodes.map(\.cpuPercent) == [50, nil])
        #expect(report.generatorCPUPercent == nil)
    }

    @Test func aPollThatFailedAtTheEndLosesASecondNotTheFigure() {
        let start = ContinuousClock.now
        var timeline = ChatTimeline()
        timeline.samples = [
            .init(at: start, nodes: [1, 1], resident: [1, 1], generator: 0, watched: [0]),
            .init(at: start + .seconds(4), nodes: [3, 2], resident: [2, 2], generator: 2, watched: [1]),
            .init(at: start + .seconds(5), nodes: [4, nil], resident: [3, nil], generator: 3, watched: [nil]),
        ]
        let report = ChatReport(options: ChatOptions(), users: 2, privateDialogs: 1, groupDialogs: 0, snapshot: .init(),
                                start: start, sendingSeconds: 4, timeline: timeline, nodes: ["a", "b"], watched: ["db"])
        #expect(report.nodes.map(\.cpuPercent) == [60, 25])
        #expect(report.serverCPUPercent == 85)
        #expect(report.nodes.map(\.residentBytes) == [3, 2])
        #expect(report.processes.first?.cpuPercent == 25)
        #expect(report.generatorCPUPercent == 60)
    }
}
