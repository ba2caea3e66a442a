import OTel
import ServiceLifecycle

extension ParleyServer {
    /// Bootstraps tracing with swift-otel when `tracing.otlpEndpoint` is set: spans exported in
    /// batches over OTLP/HTTP (protobuf). Logs and metrics stay where Parley sends them (its own
    /// log handler, `/metrics`). Returns the exporter's service, to run beside the server; nil
    /// when tracing is off. Process-wide: call once, before the server starts.
    public static func bootstrapTracing(_ config: ParleyConfiguration) throws -> (any Service)? {
        guard !config.tracingOTLPEndpoint.isEmpty else { return nil }
        var otel = OTel.Configuration.default
        otel.serviceName = config.tracingServiceName
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.enabled = true
        otel.traces.exporter = .otlp
        otel.traces.otlpExporter.protocol = .httpProtobuf
        otel.traces.otlpExporter.endpoint = config.tracingOTLPEndpoint
        otel.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
        return try OTel.bootstrap(configuration: otel)
    }
}
