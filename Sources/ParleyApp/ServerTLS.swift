import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL

/// HTTPS and WSS served by Parley itself, from `http.tls.certificate` and `http.tls.key` (PEM).
/// Without them Parley speaks plain HTTP, for a TLS-terminating proxy in front (docs/deploying.md).
enum ServerTLS {
    enum Failure: Error, CustomStringConvertible {
        case incomplete
        case unreadable(String, any Error)

        var description: String {
            switch self {
            case .incomplete: "http.tls.certificate and http.tls.key go together: set both (PEM files) or neither"
            case .unreadable(let path, let error): "cannot read \(path) for TLS: \(error)"
            }
        }
    }

    /// The server's TLS setup, or nil for plain HTTP. A half or unreadable setup stops the start.
    static func configuration(_ config: ParleyConfiguration) throws -> TLSConfiguration? {
        guard config.servesTLS else { return nil }
        guard !config.tlsCertificate.isEmpty, !config.tlsKey.isEmpty else { throw Failure.incomplete }
        let chain: [NIOSSLCertificate], key: NIOSSLPrivateKey
        do { chain = try NIOSSLCertificate.fromPEMFile(config.tlsCertificate) } catch { throw Failure.unreadable(config.tlsCertificate, error) }
        do { key = try NIOSSLPrivateKey(file: config.tlsKey, format: .pem) } catch { throw Failure.unreadable(config.tlsKey, error) }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["http/1.1"]
        return tls
    }

    /// `base` wrapped in TLS when configured.
    static func builder(_ base: HTTPServerBuilder, tls: TLSConfiguration?) -> HTTPServerBuilder {
        guard let tls else { return base }
        // `.tls` only wraps the builder; it cannot fail here.
        return (try? .tls(base, tlsConfiguration: tls)) ?? base
    }
}
