import CoreMetrics
import Foundation
import ParleyCore
import ParleyHTTP
import Testing

/// The parts behind the operations routes: reading proc(5) text, and the metrics registry that
/// `/metrics` writes out.
@Suite struct OperationsFiguresTests {
    // MARK: proc(5)

    /// `utime` and `stime` are fields 14 and 15; after `comm` (field 2) and `state` they are
    /// the 12th and 13th tokens.
    static let stat = "12345 (parley) S 1 12345 12345 0 -1 4194560 2416 0 3 0 150 37 0 0 20 0 9 0 123456 1234567168 5120 18446744073709551615\n"
    static let statm = "61234 5120 1024 300 0 8000 0\n"

    @Test func cpuTimeIsUserPlusSystemTicksOverTheTickRate() {
        #expect(ProcessStats.cpuTicks(stat: Self.stat) == 187)
        let stats = ProcessStats.parse(stat: Self.stat, statm: Self.statm, ticksPerSecond: 100, pageSize: 4096)
        #expect(stats == ProcessStats(cpuSeconds: 1.87, residentBytes: 5120 * 4096))
    }

    @Test func anExecutableNameWithSpacesAndParenthesesDoesNotShiftTheFields() {
        let tricky = "42 (a) b (c)) R 1 42 42 0 -1 0 0 0 0 0 7 5 0 0 20 0 1 0 1 1 1 1\n"
        #expect(ProcessStats.cpuTicks(stat: tricky) == 12)
    }

    @Test func textThatIsNotProcStatGivesNothing() {
        #expect(ProcessStats.cpuTicks(stat: "") == nil)
        #expect(ProcessStats.cpuTicks(stat: "1 (x) S 1 2 3") == nil)
        #expect(ProcessStats.cpuTicks(stat: "1 (x) S 1 2 3 4 5 6 7 8 9 ten 11") == nil)
        #expect(ProcessStats.residentPages(statm: "61234") == nil)
        #expect(ProcessStats.residentPages(statm: "61234 -3") == nil)
        #expect(ProcessStats.parse(stat: Self.stat, statm: Self.statm, ticksPerSecond: 0, pageSize: 4096) == nil)
    }

    #if os(Linux)
    @Test func theRunningProcessHasSpentTimeAndMemory() throws {
        let stats = try #require(ProcessStats.current())
        #expect(stats.cpuSeconds > 0)
        #expect(stats.residentBytes > 1 << 20)
    }
    #endif

    // MARK: Metrics through swift-metrics, written by swift-prometheus

    static func snapshot(droppedByReason: [String: UInt64] = [:], packetsOut: UInt64 = 10, connections: Int = 3,
                         databaseKind: String = "sqlite") -> StatusSnapshot {
        StatusSnapshot(
            version: "1.2.3", uptimeSeconds: 61.5, connections: connections, onlineUsers: 2,
            calls: CallStats(ringing: 1, active: 4, ended: 9),
            relay: RelayStats(legs: 8, packetsIn: 1 << 40, packetsOut: packetsOut, bytesIn: 1200, bytesOut: 1100, decryptFailures: 2,
                              droppedByReason: droppedByReason,
                              tcp: RelayStats.TCP(connections: 3, pending: 1, accepted: 7, packetsIn: 4, packetsOut: 6,
                                                  bytesIn: 400, bytesOut: 600, closedByReason: ["timed_out": 2, "over_limit": 0])),
            process: ProcessStats(cpuSeconds: 0.25, residentBytes: 50_000_000),
            database: DatabaseStatus(kind: databaseKind, ok: true))
    }

    static func scrape(_ registry: MetricsRegistry, _ snapshot: StatusSnapshot) throws -> (Exposition, String) {
        registry.collect(snapshot.metricFamilies)
        let text = String(decoding: registry.render(), as: UTF8.self)
        return (try Exposition(parsing: text), text)
    }

    @Test func everyFigureReadAtScrapeTimeBecomesASampleOfItsFamily() throws {
        let (metrics, _) = try Self.scrape(MetricsRegistry(), Self.snapshot(droppedByReason: ["srtp_auth_fail": 3, "no_target": 5]))
        #expect(Set(metrics.order) == [
            "parley_uptime_seconds", "parley_connections", "parley_online_users", "parley_calls",
            "parley_relay_legs", "parley_relay_packets_total", "parley_relay_bytes_total", "parley_relay_tcp_connections",
            "parley_relay_tcp_packets_total", "parley_relay_tcp_bytes_total", "parley_relay_tcp_connections_closed_total",
            "parley_relay_decrypt_failures_total",
            "parley_relay_dropped_total", "parley_push_sent_total", "parley_push_retried_total",
            "process_cpu_seconds_total", "process_resident_memory_bytes", "parley_database_up",
        ])
        #expect(metrics["parley_relay_packets_total"]?.type == "counter")
        #expect(metrics["parley_calls"]?.type == "gauge")
        #expect(metrics["parley_relay_legs"]?.help == "Media relay legs open (one per participant's peer connection).")
        #expect(metrics.value("parley_uptime_seconds") == 61.5)
        #expect(metrics.value("parley_calls", ["state": "active"]) == 4)
        #expect(metrics.value("parley_relay_dropped_total", ["reason": "no_target"]) == 5)
        #expect(metrics.value("parley_relay_dropped_total", ["reason": "srtp_auth_fail"]) == 3)
        #expect(metrics.value("parley_relay_packets_total", ["direction": "in"]) == Double(1 << 40))
        #expect(metrics.value("process_cpu_seconds_total") == 0.25)
        // ICE over TCP: its share of the packets, its connections by state, and those the relay closed.
        #expect(metrics.value("parley_relay_tcp_packets_total", ["direction": "out"]) == 6)
        #expect(metrics.value("parley_relay_tcp_bytes_total", ["direction": "in"]) == 400)
        #expect(metrics.value("parley_relay_tcp_connections", ["state": "checked"]) == 2)
        #expect(metrics.value("parley_relay_tcp_connections", ["state": "pending"]) == 1)
        #expect(metrics.value("parley_relay_tcp_connections_closed_total", ["reason": "timed_out"]) == 2)
    }

    @Test func countersAdvanceByWhatTheyGrewAndGaugesTakeTheLatestValue() throws {
        let registry = MetricsRegistry()
        _ = try Self.scrape(registry, Self.snapshot(packetsOut: 10, connections: 3))
        let (metrics, text) = try Self.scrape(registry, Self.snapshot(packetsOut: 25, connections: 1))
        #expect(metrics.value("parley_relay_packets_total", ["direction": "out"]) == 25)
        #expect(metrics.value("parley_connections") == 1)
        // Integer counters stay integers on the wire.
        #expect(text.contains("parley_relay_packets_total{direction=\"out\"} 25\n"))
    }

    @Test func labelValuesAreEscaped() throws {
        let odd = "we\"ird\\reason\nx"
        let (metrics, _) = try Self.scrape(MetricsRegistry(), Self.snapshot(droppedByReason: [odd: 1], databaseKind: "sq\"lite"))
        #expect(metrics.value("parley_relay_dropped_total", ["reason": odd]) == 1)
        #expect(metrics.value("parley_database_up", ["kind": "sq\"lite"]) == 1)
    }

    @Test func swiftMetricsTimersBecomeHistogramsWithTheirBucketsAndHelp() throws {
        let registry = MetricsRegistry()
        let ack = CoreMetrics.Timer(label: "parley_message_ack_seconds", factory: registry)
        ack.record(Duration.microseconds(700))
        ack.record(Duration.milliseconds(30))
        Counter(label: "parley_calls_total", dimensions: [("outcome", "answered")], factory: registry).increment()
        let metrics = try Exposition(parsing: String(decoding: registry.render(), as: UTF8.self))
        #expect(metrics["parley_message_ack_seconds"]?.type == "histogram")
        #expect(metrics["parley_message_ack_seconds"]?.help?.hasPrefix("Time from a message's send") == true)
        #expect(metrics.value("parley_message_ack_seconds_bucket", ["le": "0.0005"]) == 0)
        #expect(metrics.value("parley_message_ack_seconds_bucket", ["le": "0.001"]) == 1)
        #expect(metrics.value("parley_message_ack_seconds_bucket", ["le": "0.05"]) == 2)
        #expect(metrics.value("parley_message_ack_seconds_bucket", ["le": "+Inf"]) == 2)
        #expect(metrics.value("parley_message_ack_seconds_count") == 2)
        #expect(abs((metrics.value("parley_message_ack_seconds_sum") ?? 0) - 0.0307) < 1e-9)
        #expect(metrics.value("parley_calls_total", ["outcome": "answered"]) == 1)
        #expect(metrics["parley_calls_total"]?.type == "counter")
    }
}
