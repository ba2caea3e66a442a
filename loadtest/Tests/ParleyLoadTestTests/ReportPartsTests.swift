import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import ParleyLoadTest

@Suite("Report parts: the reference's output, the chart, the send time in a message")
struct ReportPartsTests {
    @Test func readsTheReferenceRelayLine() throws {
        let output = """
        gen sent=200000 pps=20000 cpu_s=1.234
        relay got=199876 fwd=199876 bad=0 wall_s=10.00 cpu_s=1.480 cpu_us_per_pkt=7.405 pps=19988
        sink got=199876 verified=0
        """
        let parsed = try #require(ReferenceRun.parseRelayLine(output))
        #expect(parsed.cpuMicrosecondsPerPacket == 7.405)
        #expect(parsed.packetsPerSecond == 19_988)
        #expect(ReferenceRun.parseRelayLine("gen sent=1\nsink got=1") == nil)
        #expect(ReferenceRun.parseRelayLine("relay got=1 cpu_us_per_pkt=abc") == nil)
    }

    @Test func missingReferenceScriptIsAClearError() {
        #expect(throws: ReferenceRun.Failure.self) {
            try ReferenceRun(script: "/nonexistent/run.sh").run(packetsPerSecond: 100, packetSize: 100, seconds: 1)
        }
    }

    @Test func chartIsWellFormedSVGWithAPanelPerSeries() throws {
        let points = (0..<10).map { TimelinePoint(time: Double($0), active: 3, rate: Double($0) * 1_000,
                                                  lossPercent: $0 == 4 ? 1.5 : 0, latencyP50: 0.8, latencyP99: 2.5) }
        let svg = points.chart(title: "a <run> & more", rateTitle: "Relayed packets", rateUnit: "packets/s",
                               lossTitle: "Packet loss", latencyTitle: "One-way latency").svg
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 4)
        #expect(svg.contains("a &lt;run&gt; &amp; more"))
        #expect(svg.contains("Packet loss (%)"))
        // The rate axis tops out at a round number above the peak (9 000 → 10 000).
        #expect(svg.contains(">10000<"))
    }

    @Test func niceCeilings() {
        #expect(SVGChart.niceCeiling(0) == 1)
        #expect(SVGChart.niceCeiling(0.7) == 1)
        #expect(SVGChart.niceCeiling(1.2) == 2)
        #expect(SVGChart.niceCeiling(3) == 5)
        #expect(SVGChart.niceCeiling(9_000) == 10_000)
        #expect(SVGChart.niceCeiling(20_000) == 20_000)
        #expect(SVGChart.niceCeiling(.infinity) == 1)
    }

    @Test func messageCarriesItsSendTime() throws {
        let sentAt = ContinuousClock.now
        let text = ChatScenario.text(sentAt: sentAt)
        let read = try #require(ChatScenario.sendTime(text))
        #expect(abs((read - sentAt).seconds) < 0.000_001)
        #expect(ChatScenario.sendTime("hello there") == nil)
    }

    @Test func serverWindowStartsWhenEveryCallIsPlaced() throws {
        func status(out: UInt64, bytes: UInt64, cpu: Double) -> ServerAPI.Status {
            ServerAPI.Status(connections: 4, relay: .init(legs: 4, packetsIn: out, packetsOut: out, bytesIn: bytes, bytesOut: bytes,
                                                          decryptFailures: 0, dropped: 0),
                             process: .init(cpuSeconds: cpu, residentBytes: 1 << 20), calls: .init(ringing: 0, active: 2))
        }
        let t0 = ContinuousClock.now
        func host(_ cpu: Double, _ drops: UInt64) -> HostFigures { HostFigures(harnessCPUSeconds: cpu, udpReceiveBufferErrors: drops) }
        let statuses = [
            StatusSample(at: t0, status: status(out: 100, bytes: 100_000, cpu: 1.0), host: host(0, 0), allPlaced: false),
            StatusSample(at: t0 + .seconds(1), status: status(out: 1_000, bytes: 1_000_000, cpu: 1.1), host: host(1, 5), allPlaced: true),
            StatusSample(at: t0 + .seconds(3), status: status(out: 21_000, bytes: 21_000_000, cpu: 1.3), host: host(2.5, 12), allPlaced: true),
        ]
        let server = try #require(CallsReport.server(statuses))
        #expect(server.windowSeconds == 2)
        #expect(server.relayedPackets == 20_000)
        #expect(server.relayedPacketsPerSecond == 10_000)
        #expect(server.averagePacketBytes == 1_000)
        #expect(abs((server.cpuMicrosecondsPerPacket ?? 0) - 10) < 1e-9)
        #expect(abs(server.cpuPercentOfOneCore - 10) < 1e-9)
        #expect(CallsReport.server(Array(statuses.prefix(1))) == nil)
        let harness = try #require(CallsReport.harness(statuses, calls: 3))
        #expect(abs(harness.cpuPercentOfOneCore - 75) < 1e-9)
        #expect(abs((harness.cpuPercentPerCall ?? 0) - 25) < 1e-9)
        #expect(harness.udpReceiveBufferDrops == 7)
    }

    @Test func readsUDPReceiveBufferErrors() {
        let snmp = """
        Ip: Forwarding DefaultTTL
        Ip: 1 64
        Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
        Udp: 15585 12 3 15590 42 0 0 0 0
        UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
        UdpLite: 0 0 0 0 0 0 0 0 0
        """
        #expect(HostFigures.udpReceiveBufferErrors(snmp: snmp) == 42)
        #expect(HostFigures.udpReceiveBufferErrors(snmp: "Ip: 1 2") == nil)
        #expect(HostFigures.now().harnessCPUSeconds > 0)
    }
}

/// A synthetic trace: one stream at `rate` packets/s; packet `i` leaves at `i / rate` and arrives
/// `latency` later unless `lost(i)`. The sender's counter is read at each whole second, the
/// receiver's as it stood `staleness` earlier (each side of a call reports on its own clock).
private struct SyntheticTrace {
    var rate = 1_000
    var latency = 0.3
    var staleness = 0.6
    var lost: (Int) -> Bool = { _ in false }

    /// (sent, received, gaps) as the collector's totals would read at second `k`.
    func totals(at second: Int) -> (sent: Int, received: Int, gaps: Int) {
        let sent = second * rate
        let readAt = Double(second) - staleness
        // Packets that had arrived when the receiver reported: sent by readAt − latency.
        let arrivedBound = max(0, Int(((readAt - latency) * Double(rate)).rounded(.up)))
        var received = 0, highest = -1
        for index in 0..<min(arrivedBound, sent) where !lost(index) {
            received += 1
            highest = index
        }
        return (sent, received, highest + 1 - received)
    }

    func perSecond(seconds: Int) -> [LossTimeline.Second] {
        var timeline = LossTimeline()
        return (1...seconds).map { second in
            let t = totals(at: second)
            return timeline.add(sent: t.sent, received: t.received, gaps: t.gaps)
        }
    }

    func perSecondLoss(seconds: Int) -> [Double] { perSecond(seconds: seconds).map(\.percent) }
}

@Suite("Per-second loss: gaps and packets that never came, not packets in flight")
struct LossTimelineTests {
    @Test func packetsInFlightAtTheEdgeOfASecondAreNotLoss() {
        let trace = SyntheticTrace()
        #expect(trace.perSecondLoss(seconds: 20).allSatisfy { $0 == 0 })
        // What the old arithmetic made of the same trace: the 900 packets unaccounted for at
        // each edge (300 ms in flight + a report 600 ms old) showed as 90 % loss in the first second.
        let first = trace.totals(at: 1)
        #expect(Double(first.sent - first.received) / Double(first.sent) * 100 > 89)
    }

    @Test func sequenceGapsAreLossInTheSecondTheyShow() {
        let trace = SyntheticTrace(lost: { $0 % 50 == 7 })   // 2 %
        let loss = trace.perSecondLoss(seconds: 20)
        for percent in loss.dropFirst(2) { #expect(abs(percent - 2) < 0.21, "\(loss)") }
        #expect(loss.allSatisfy { $0 <= 2.21 })
    }

    @Test func aStreamThatStopsIsLossOnceEvenWhenItResumes() {
        // Packets sent in seconds 5, 6 and 7 never arrive; from 8 on the stream is back.
        let trace = SyntheticTrace(lost: { (5_000..<8_000).contains($0) })
        let seconds = trace.perSecond(seconds: 20)
        let loss = seconds.map(\.percent)
        #expect(loss.prefix(5).allSatisfy { $0 == 0 }, "\(loss)")
        #expect(seconds.reduce(0) { $0 + $1.lost } == 3_000, "\(seconds)")
        #expect(loss.allSatisfy { $0 <= 100 })
        // Counted while the stream is silent, before any later packet turns the silence into a gap.
        #expect(loss[7] == 100, "\(loss)")
        #expect(loss.suffix(8).allSatisfy { $0 == 0 }, "\(loss)")
    }

    @Test func aStreamThatNeverResumesIsLossToo() {
        let trace = SyntheticTrace(lost: { $0 >= 10_000 })
        let loss = trace.perSecondLoss(seconds: 16)
        #expect(loss.prefix(10).allSatisfy { $0 == 0 }, "\(loss)")
        #expect(loss.suffix(3).allSatisfy { $0 == 100 }, "\(loss)")
    }
}
