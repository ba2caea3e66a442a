import COpenSSL
import CParleyShim
import ParleySRTP

/// The DTLS 1.2 server end of one WebRTC leg (RFC 6347, RFC 5764), with no socket: the relay
/// hands it each datagram that arrived from the leg's address (first byte 20–63, RFC 7983) and
/// sends the datagrams it returns.
///
/// - Incoming datagrams go through a memory BIO one at a time, so the record layer reads exactly
///   one datagram; OpenSSL itself reassembles fragmented handshake messages (Chromium's
///   ClientHello arrives in two) and buffers out-of-order ones (RFC 6347 §4.2.3).
/// - Outgoing records go through ``DatagramBIO``: one write, one datagram of at most ``mtu`` bytes.
/// - Retransmission (RFC 6347 §4.2.4): poll ``nextTimeout`` and call ``handleTimeout()`` when it
///   has passed; OpenSSL's clock is the system's.
/// - Application data (e.g. SCTP data channels) is read and discarded.
/// - Noncopyable: one owner drives it from one thread at a time; it may move between threads.
public struct DTLSServer: ~Copyable, @unchecked Sendable {
    private var endpoint: DTLSEndpoint
    /// The largest datagram the endpoint writes.
    public let mtu: Int
    public var state: DTLSState { endpoint.state }

    /// Key export label for DTLS-SRTP (RFC 5764 §4.2).
    static let exporterLabel = DTLSEndpoint.exporterLabel

    /// A server endpoint that will accept only a client certificate matching
    /// `remoteFingerprint`, the `a=fingerprint` of the client's offer.
    /// - Parameters:
    ///   - mtu: largest datagram to send; 1200 leaves room for IPv6, UDP and TURN framing.
    ///   - initialRetransmissionTimeout: first retransmission timer (RFC 6347 §4.2.4.1: 1 s).
    public init(context: DTLSContext, remoteFingerprint: DTLSFingerprint, mtu: Int = 1200,
                initialRetransmissionTimeout: Duration = .seconds(1)) throws(DTLSSetupError) {
        endpoint = try DTLSEndpoint(context: context, role: .server, remoteFingerprint: remoteFingerprint, mtu: mtu,
                                    initialRetransmissionTimeout: initialRetransmissionTimeout)
        self.mtu = mtu
    }

    /// Feeds one datagram from the client. Garbage that OpenSSL can discard (RFC 6347 §4.1.2.7)
    /// is ignored; anything fatal moves the endpoint to ``DTLSState/failed(_:)``. Datagrams after
    /// failure or close are ignored.
    public mutating func receive(_ datagram: UnsafeRawBufferPointer) -> DTLSOutcome {
        endpoint.receive(datagram)
    }

    /// Time until the retransmission timer fires, zero if it already has, nil when no timer runs.
    public var nextTimeout: Duration? { endpoint.nextTimeout }

    /// Retransmits the last flight if its timer has expired (RFC 6347 §4.2.4). Returns the
    /// datagrams to resend, or a ``DTLSFailure/timedOut(_:)`` once OpenSSL gives up.
    public mutating func handleTimeout() -> DTLSOutcome { endpoint.handleTimeout() }

    /// Sends close_notify (RFC 5246 §7.2.1) and moves to ``DTLSState/closed``.
    public mutating func close() -> DTLSOutcome { endpoint.close() }
}
