import CoreMetrics

/// Counts what another transport sends and fails to send: `parley_mail_total{outcome}`.
public struct CountingMailTransport: MailTransport {
    let transport: any MailTransport
    let factory: any MetricsFactory

    public init(_ transport: any MailTransport, factory: any MetricsFactory) {
        self.transport = transport
        self.factory = factory
    }

    public func send(_ message: MailMessage) async throws {
        do {
            try await transport.send(message)
            count("sent")
        } catch {
            count("failed")
            throw error
        }
    }

    private func count(_ outcome: String) {
        Counter(label: "parley_mail_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }
}
