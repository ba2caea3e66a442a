/// The figures `/metrics` reads at scrape time from the layers that count them (carried into
/// the swift-prometheus registry by ``MetricsRegistry/collect(_:)``). Names follow Prometheus
/// conventions: base units (seconds, bytes), `_total` on counters, `process_*` as the official
/// client libraries name them.
extension StatusSnapshot {
    public var metricFamilies: [MetricFamily] {
        typealias Sample = MetricFamily.Sample
        typealias Label = MetricFamily.Label
        let direction = { (value: String) in [Label("direction", value)] }
        return [
            MetricFamily("parley_uptime_seconds", help: "Seconds since this server started.", kind: .gauge, value: .real(uptimeSeconds)),
            MetricFamily("parley_connections", help: "Open realtime WebSocket connections.", kind: .gauge, value: .count(connections)),
            MetricFamily("parley_online_users", help: "Users with at least one open realtime connection.", kind: .gauge,
                         value: .count(onlineUsers)),
            MetricFamily("parley_calls", help: "Calls in progress, by state.", kind: .gauge, samples: [
                Sample([Label("state", "ringing")], .count(calls.ringing)),
                Sample([Label("state", "active")], .count(calls.active)),
            ]),
            MetricFamily("parley_relay_legs", help: "Media relay legs open (one per participant's peer connection).", kind: .gauge,
                         value: .count(relay.legs)),
            MetricFamily("parley_relay_packets_total", help: "Datagrams through the media relay.", kind: .counter, samples: [
                Sample(direction("in"), .unsigned(relay.packetsIn)), Sample(direction("out"), .unsigned(relay.packetsOut)),
            ]),
            MetricFamily("parley_relay_bytes_total", help: "Bytes through the media relay.", kind: .counter, samples: [
                Sample(direction("in"), .unsigned(relay.bytesIn)), Sample(direction("out"), .unsigned(relay.bytesOut)),
            ]),
            MetricFamily("parley_relay_tcp_connections", help: "TCP media connections open (ICE over TCP), by state.", kind: .gauge,
                         samples: [
                             Sample([Label("state", "checked")], .count(relay.tcp.connections - relay.tcp.pending)),
                             Sample([Label("state", "pending")], .count(relay.tcp.pending)),
                         ]),
            MetricFamily("parley_relay_tcp_packets_total", help: "Framed packets over TCP media connections (also in parley_relay_packets_total).",
                         kind: .counter, samples: [
                             Sample(direction("in"), .unsigned(relay.tcp.packetsIn)), Sample(direction("out"), .unsigned(relay.tcp.packetsOut)),
                         ]),
            MetricFamily("parley_relay_tcp_bytes_total", help: "Packet bytes over TCP media connections (also in parley_relay_bytes_total).",
                         kind: .counter, samples: [
                             Sample(direction("in"), .unsigned(relay.tcp.bytesIn)), Sample(direction("out"), .unsigned(relay.tcp.bytesOut)),
                         ]),
            MetricFamily("parley_relay_tcp_connections_closed_total", help: "TCP media connections the relay closed before they carried media, by reason.",
                         kind: .counter, samples: relay.tcp.closedByReason.sorted { $0.key < $1.key }.map {
                             Sample([Label("reason", $0.key)], .unsigned($0.value))
                         }),
            MetricFamily("parley_relay_decrypt_failures_total", help: "SRTP/SRTCP packets that failed authentication or replay checks.",
                         kind: .counter, value: .unsigned(relay.decryptFailures)),
            MetricFamily("parley_relay_dropped_total", help: "Datagrams the media relay dropped, by reason.", kind: .counter,
                         samples: relay.droppedByReason.sorted { $0.key < $1.key }.map { Sample([Label("reason", $0.key)], .unsigned($0.value)) }),
            MetricFamily("parley_push_sent_total", help: "Pushes handed to APNs, by outcome.", kind: .counter, samples: [
                Sample([Label("outcome", "delivered")], .count(push.delivered)),
                Sample([Label("outcome", "failed")], .count(push.failed)),
                Sample([Label("outcome", "token_gone")], .count(push.tokensGone)),
                Sample([Label("outcome", "expired")], .count(push.expired)),
            ]),
            MetricFamily("parley_push_failed_total", help: "Pushes APNs refused or that were given up on, by reason.", kind: .counter,
                         samples: push.failedByReason.sorted { $0.key < $1.key }.map { Sample([Label("reason", $0.key)], .count($0.value)) }),
            MetricFamily("parley_push_retried_total", help: "Requests to APNs that repeated an earlier one.", kind: .counter,
                         value: .count(push.retried)),
            MetricFamily("parley_push_latency_seconds", help: "Event to APNs' acceptance over recent pushes, by quantile.", kind: .gauge,
                         samples: [("0.5", push.latencyP50Seconds), ("0.99", push.latencyP99Seconds)].compactMap { quantile, value in
                             value.map { Sample([Label("quantile", quantile)], .real($0)) }
                         }),
            MetricFamily("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", kind: .counter,
                         value: .real(process.cpuSeconds)),
            MetricFamily("process_resident_memory_bytes", help: "Resident memory size in bytes.", kind: .gauge,
                         value: .unsigned(process.residentBytes)),
            MetricFamily("parley_database_up", help: "1 when the database answered a trivial query just now, else 0.", kind: .gauge,
                         samples: [Sample([Label("kind", database.kind)], .integer(database.ok ? 1 : 0))]),
        ]
    }
}
