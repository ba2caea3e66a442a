import COpenSSL
import CParleyShim
import ParleySRTP

/// The DTLS 1.2 client end of a WebRTC transport (RFC 6347, RFC 5764; `a=setup:active`), with no
/// socket — the counterpart of ``DTLSServer`` for Parley's own test and load clients.
///
/// Same I/O model as the server: ``start()`` returns the ClientHello flight, each datagram from
/// the server goes to ``receive(_:)``, and the returned datagrams are sent; poll ``nextTimeout``
/// and call ``handleTimeout()`` for retransmissions (RFC 6347 §4.2.4). The server's certificate
/// is accepted only if it matches the fingerprint from the answer (RFC 5763 §5). On
/// ``DTLSState/connected(_:)`` use the keys' ``SRTPKeyingMaterial/clientInbound`` and
/// ``SRTPKeyingMaterial/clientOutbound``.
public struct DTLSClient: ~Copyable, @unchecked Sendable {
    private var endpoint: DTLSEndpoint
    public let mtu: Int
    public var state: DTLSState { endpoint.state }

    /// A client endpoint on a context made with `role: .client`, accepting only a server
    /// certificate matching `remoteFingerprint` (the answer's `a=fingerprint`).
    public init(context: DTLSContext, remoteFingerprint: DTLSFingerprint, mtu: Int = 1200,
                initialRetransmissionTimeout: Duration = .seconds(1)) throws(DTLSSetupError) {
        OpenSSLErrors.clear()
        guard context.role == .client else { throw DTLSSetupError("DTLSClient needs a context with role .client") }
        endpoint = try DTLSEndpoint(context: context, role: .client, remoteFingerprint: remoteFingerprint, mtu: mtu,
                                    initialRetransmissionTimeout: initialRetransmissionTimeout)
        self.mtu = mtu
    }

    /// Writes the first flight (ClientHello).
    public mutating func start() -> DTLSOutcome { endpoint.start() }

    /// Feeds one datagram from the server.
    public mutating func receive(_ datagram: UnsafeRawBufferPointer) -> DTLSOutcome {
        endpoint.receive(datagram)
    }

    /// Time until the retransmission timer fires, zero if it already has, nil when none runs.
    public var nextTimeout: Duration? { endpoint.nextTimeout }

    /// Retransmits the last flight if its timer expired (RFC 6347 §4.2.4).
    public mutating func handleTimeout() -> DTLSOutcome { endpoint.handleTimeout() }

    /// Sends close_notify (RFC 5246 §7.2.1).
    public mutating func close() -> DTLSOutcome { endpoint.close() }
}
