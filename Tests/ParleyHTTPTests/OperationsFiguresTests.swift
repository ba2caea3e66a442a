import Foundation
import ParleyCore
import ParleyHTTP
import Testing

/// The pure parts behind the operations routes: reading proc(5) text and writing the
/// Prometheus text format.
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

    // MARK: Prometheus text format 0.0.4

    static func snapshot(droppedByReason: [String: UInt64] = [:], databaseKind: String = "sqlite") -> StatusSnapshot {
        StatusSnapshot(
            version: "1.2.3", uptimeSeconds: 61.5, connections: 3, onlineUsers: 2,
            calls: CallStats(ringing: 1, active: 4, ended: 9),
            relay: RelayStats(legs: 8, packetsIn: .max, packetsOut: 10, bytesIn: 1200, bytesOut: 1100, decryptFailures: 2,
                              droppedByReason: droppedByReason,
                              tcp: RelayStats.TCP(connections: 3, pending: 1, accepted: 7, packetsIn: 4, packetsOut: 6,
                                                  bytesIn: 400, bytesOut: 600, closedByReason: ["timed_out": 2, "over_limit": 0])),
            process: ProcessStats(cpuSeconds: 0.25, residentBytes: 50_000_000),
            database: DatabaseStatus(kind: databaseKind, ok: true))
    }

    @Test func everyFigureBecomesASampleOfItsFamily() throws {
        let text = Self.snapshot(droppedByReason: ["srtp_auth_fail": 3, "no_target": 5]).prometheusText
        let metrics = try Exposition(parsing: text)
        #expect(metrics.order == [
            "parley_uptime_seconds", "parley_connections", "parley_online_users", "parley_calls", "parley_calls_ended_total",
            "parley_relay_legs", "parley_relay_packets_total", "parley_relay_bytes_total", "parley_relay_tcp_connections",
            "parley_relay_tcp_packets_total", "parley_relay_tcp_bytes_total", "parley_relay_tcp_connections_closed_total",
            "parley_relay_decrypt_failures_total",
            "parley_relay_dropped_total", "parley_push_sent_total", "parley_push_failed_total", "parley_push_retried_total",
            "parley_push_latency_seconds", "process_cpu_seconds_total", "process_resident_memory_bytes", "parley_database_up",
        ])
        #expect(metrics.value("parley_uptime_seconds") == 61.5)
        #expect(metrics.value("parley_calls", ["state": "active"]) == 4)
        #expect(metrics.value("parley_calls_ended_total") == 9)
        #expect(metrics.value("parley_relay_dropped_total", ["reason": "no_target"]) == 5)
        #expect(metrics.value("parley_relay_dropped_total", ["reason": "srtp_auth_fail"]) == 3)
        #expect(metrics.value("process_cpu_seconds_total") == 0.25)
        // ICE over TCP: its share of the packets, its connections by state, and those the relay closed.
        #expect(metrics.value("parley_relay_tcp_packets_total", ["direction": "out"]) == 6)
        #expect(metrics.value("parley_relay_tcp_bytes_total", ["direction": "in"]) == 400)
        #expect(metrics.value("parley_relay_tcp_connections", ["state": "checked"]) == 2)
        #expect(metrics.value("parley_relay_tcp_connections", ["state": "pending"]) == 1)
        #expect(metrics.value("parley_relay_tcp_connections_closed_total", ["reason": "timed_out"]) == 2)
        // Counters past 2^53 are written exactly, not rounded through a Double.
        #expect(text.contains("parley_relay_packets_total{direction=\"in\"} 18446744073709551615\n"))
        // Reasons in a stable order.
        #expect(text.range(of: "reason=\"no_target\"")!.lowerBound < text.range(of: "reason=\"srtp_auth_fail\"")!.lowerBound)
    }

    @Test func labelValuesEscapeBackslashQuoteAndLineFeed() throws {
        let odd = "we\"ird\\reason\nx"
        let text = Self.snapshot(droppedByReason: [odd: 1], databaseKind: "sq\"lite").prometheusText
        #expect(text.contains(#"parley_relay_dropped_total{reason="we\"ird\\reason\nx"} 1"# + "\n"))
        let metrics = try Exposition(parsing: text)
        #expect(metrics.value("parley_relay_dropped_total", ["reason": odd]) == 1)
        #expect(metrics.value("parley_database_up", ["kind": "sq\"lite"]) == 1)
    }

    @Test func helpEscapesBackslashAndLineFeedAndValuesUseTheFormatsSpelling() throws {
        let text = PrometheusText.render([
            MetricFamily("odd_help", help: "a\\b\nc \"quoted\"", kind: .gauge, value: .real(.infinity)),
            MetricFamily("odd_values", help: "h", kind: .gauge, samples: [
                .init([.init("v", "nan")], .real(.nan)), .init([.init("v", "neg")], .real(-.infinity)), .init([.init("v", "int")], .integer(-3)),
            ]),
        ])
        #expect(text == """
            # HELP odd_help a\\\\b\\nc "quoted"
            # TYPE odd_help gauge
            odd_help +Inf
            # HELP odd_values h
            # TYPE odd_values gauge
            odd_values{v="nan"} NaN
            odd_values{v="neg"} -Inf
            odd_values{v="int"} -3

            """)
        let metrics = try Exposition(parsing: text)
        #expect(metrics["odd_help"]?.help == "a\\b\nc \"quoted\"")
        #expect(metrics.value("odd_values", ["v": "nan"])?.isNaN == true)
    }

    @Test func namesAreCheckedAgainstTheFormatsGrammar() {
        #expect(PrometheusText.isValidMetricName("parley_calls"))
        #expect(PrometheusText.isValidMetricName("a:b_c9"))
        #expect(!PrometheusText.isValidMetricName("9lives"))
        #expect(!PrometheusText.isValidMetricName("with-dash"))
        #expect(!PrometheusText.isValidMetricName(""))
        #expect(PrometheusText.isValidLabelName("direction"))
        #expect(!PrometheusText.isValidLabelName("__reserved"))
        #expect(!PrometheusText.isValidLabelName("a:b"))
    }
}
