import CoreMetrics

/// What the relay reports through swift-metrics as it happens: DTLS handshakes, their outcome and
/// how long each took. The per-packet figures (packets, bytes, drops by reason) stay in the
/// engine's own counters, read at scrape time: a metrics call per packet would cost the hot path.
public struct RelayMetrics: Sendable {
    let factory: any MetricsFactory

    public init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// Reports nothing.
    public static let none = RelayMetrics(factory: NOOPMetricsHandler.instance)

    /// A handshake that ended: `connected` (keys exported) or `failed`, and, when connected, how
    /// long it took from the first DTLS flight.
    func handshake(_ outcome: String, took duration: Duration?) {
        Counter(label: "parley_dtls_handshakes_total", dimensions: [("outcome", outcome)], factory: factory).increment()
        if let duration {
            Timer(label: "parley_dtls_handshake_seconds", factory: factory).record(duration)
        }
    }
}
