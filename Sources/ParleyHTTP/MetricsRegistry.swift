import CoreMetrics
import Prometheus
import Synchronization

/// The server's metrics: a swift-metrics factory every layer records through, backed by one
/// swift-prometheus registry that `/metrics` writes out. Each server has its own (tests run
/// several in one process), so nothing is bootstrapped globally.
///
/// Figures another layer already counts on its hot path (relay packets and drops, connections,
/// process, push) are read at scrape time and carried into the registry (`collect`): gauges
/// set, counters advanced by what they grew since the last scrape.
public final class MetricsRegistry: MetricsFactory, Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// Each counter series' value at the last scrape, keyed by name and labels.
    private let collected = Mutex<[String: Double]>([:])

    public init() {}

    // MARK: Help and buckets

    /// HELP lines for what is recorded through swift-metrics (whose API has no place for them).
    static let help: [String: String] = [
        "parley_http_requests_total": "HTTP requests answered, by matched route, method and status.",
        "parley_http_request_duration_seconds": "Time to answer an HTTP request, by matched route, method and status.",
        "parley_call_setup_seconds": "Time from a call's invite to each setup step: incoming (the callee's devices told), accepted, first_media (the first media packet through the relay).",
        "parley_calls_total": "Calls ended, by outcome: answered, or why they ended unanswered.",
        "parley_message_ack_seconds": "Time from a message's send to its acknowledgement (committed to the database).",
        "parley_message_delivery_seconds": "Time from a new message being numbered for a recipient to its frame queued on that recipient's live sockets.",
        "parley_dtls_handshakes_total": "DTLS handshakes of relay legs that ended, by outcome.",
        "parley_dtls_handshake_seconds": "Time from a leg's first DTLS flight to its SRTP keys.",
        "parley_mail_total": "Mail handed to the transport (the outbox or SMTP), by outcome: sent or failed.",
        "parley_typing_dropped_total": "Typing notices not passed on: more than one per person and dialog within realtime.typingIntervalSeconds.",
        "parley_message_batch_size": "Messages stored by one statement on PostgreSQL (sends that arrived while the node's previous batch was under way).",
        "parley_message_batch_fallbacks_total": "Batches of messages whose statement failed as a whole on PostgreSQL, so that each of their sends ran alone.",
    ]

    /// Buckets for the histograms whose range differs from the default (5 ms … 10 s).
    static let buckets: [String: [Duration]] = [
        "parley_message_ack_seconds": fine,
        "parley_message_delivery_seconds": fine,
        "parley_dtls_handshake_seconds": fine,
        "parley_call_setup_seconds": [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60].map { .seconds($0) },
    ]
    /// Buckets of the histograms of counts (swift-metrics recorders), by name.
    static let valueBuckets: [String: [Double]] = [
        "parley_message_batch_size": [1, 2, 4, 8, 16, 32, 64],
    ]
    static let fine: [Duration] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5].map { .seconds($0) }
    static let standard: [Duration] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10].map { .seconds($0) }

    static func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: help[label] ?? "")
    }

    // MARK: MetricsFactory

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: Self.descriptor(label), labels: dimensions) }
        let buckets = Self.valueBuckets[label]
            ?? (Self.buckets[label] ?? Self.standard).map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
        return registry.makeValueHistogram(descriptor: Self.descriptor(label), labels: dimensions, buckets: buckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: Self.descriptor(label), labels: dimensions,
                                       buckets: Self.buckets[label] ?? Self.standard)
    }

    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyMeter(_ handler: any MeterHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}

    // MARK: Scrape

    /// Carries figures read just now into the registry.
    public func collect(_ families: [MetricFamily]) {
        collected.withLock { last in
            for family in families {
                let descriptor = MetricNameDescriptor(metricName: family.name, unitName: "", helpText: family.help)
                for sample in family.samples {
                    let labels = sample.labels.map { ($0.name, $0.value) }
                    let value = sample.value.double
                    switch family.kind {
                    case .gauge:
                        registry.makeGauge(descriptor: descriptor, labels: labels).set(value)
                    case .counter:
                        let key = family.name + sample.labels.map { "|\($0.name)=\($0.value)" }.joined()
                        let grown = value - (last[key] ?? 0)
                        let counter = registry.makeCounter(descriptor: descriptor, labels: labels)
                        last[key] = value
                        guard grown > 0 else { continue }
                        if case .real = sample.value { counter.increment(by: grown) } else { counter.increment(by: Int64(grown)) }
                    }
                }
            }
        }
    }

    /// The Prometheus text exposition of everything recorded and collected.
    public func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}

extension MetricValue {
    var double: Double {
        switch self {
        case .integer(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .real(let value): value
        }
    }
}
