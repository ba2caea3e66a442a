import ParleySRTP

/// The DTLS 1.2 end of one WebRTC transport whose side is chosen per connection by `a=setup`
/// (RFC 5763 §5): the server (`passive`) waits for a ClientHello, the client (`active`) sends
/// one on ``start()``. The side is the context's ``DTLSContext/role``.
///
/// Same I/O model as ``DTLSServer`` and ``DTLSClient``, which are this with the side fixed:
/// feed each datagram from the peer to ``receive(_:)``, send the datagrams returned, poll
/// ``nextTimeout`` and call ``handleTimeout()`` for retransmissions (RFC 6347 §4.2.4). The peer's
/// certificate is accepted only if it matches `remoteFingerprint`, with the hash it names.
public struct DTLSTransport: ~Copyable, @unchecked Sendable {
    private var endpoint: DTLSEndpoint
    /// The side this end plays.
    public let role: DTLSRole
    /// The largest datagram the endpoint writes.
    public let mtu: Int
    public var state: DTLSState { endpoint.state }

    public init(context: DTLSContext, remoteFingerprint: DTLSFingerprint, mtu: Int = 1200,
                initialRetransmissionTimeout: Duration = .seconds(1)) throws(DTLSSetupError) {
        endpoint = try DTLSEndpoint(context: context, role: context.role, remoteFingerprint: remoteFingerprint, mtu: mtu,
                                    initialRetransmissionTimeout: initialRetransmissionTimeout)
        role = context.role
        self.mtu = mtu
    }

    /// The client's first flight (ClientHello); nothing for a server or once the handshake is over.
    public mutating func start() -> DTLSOutcome {
        role == .client ? endpoint.start() : DTLSOutcome()
    }

    /// Feeds one datagram from the peer; see ``DTLSServer/receive(_:)``.
    public mutating func receive(_ datagram: UnsafeRawBufferPointer) -> DTLSOutcome {
        endpoint.receive(datagram)
    }

    /// Time until the retransmission timer fires, zero if it already has, nil when none runs.
    public var nextTimeout: Duration? { endpoint.nextTimeout }

    /// Retransmits the last flight if its timer expired (RFC 6347 §4.2.4).
    public mutating func handleTimeout() -> DTLSOutcome { endpoint.handleTimeout() }

    /// Sends close_notify (RFC 5246 §7.2.1) and moves to ``DTLSState/closed``.
    public mutating func close() -> DTLSOutcome { endpoint.close() }
}

extension SRTPKeyingMaterial {
    /// The key this side unprotects with: the peer's write key (RFC 5764 §4.2).
    public func inbound(for role: DTLSRole) -> SRTPMasterKey {
        role == .server ? serverInbound : clientInbound
    }

    /// The key this side protects with: its own write key (RFC 5764 §4.2).
    public func outbound(for role: DTLSRole) -> SRTPMasterKey {
        role == .server ? serverOutbound : clientOutbound
    }
}
