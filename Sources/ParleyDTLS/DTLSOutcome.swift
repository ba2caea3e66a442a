import ParleySRTP

/// Where a ``DTLSServer`` stands.
public enum DTLSState: Sendable, Hashable {
    /// Waiting for (more of) the client's flights.
    case handshaking
    /// Handshake done, client certificate matched the offer, SRTP profile negotiated and keys
    /// exported (RFC 5764 §4.2): create the SRTP sessions from these.
    case connected(SRTPKeyingMaterial)
    /// Over for good; send any datagrams of the same outcome (an alert), then drop the leg.
    case failed(DTLSFailure)
    /// The client sent close_notify (RFC 5246 §7.2.1), or ``DTLSServer/close()`` was called.
    case closed
}

/// Why a DTLS endpoint failed.
public enum DTLSFailure: Error, Sendable, Hashable {
    /// OpenSSL ended the handshake; the text is its error queue.
    case handshake(String)
    /// The client's certificate does not match the offer's `a=fingerprint` (RFC 5763 §5).
    /// `actual` is nil when no certificate could be read.
    case fingerprintMismatch(expected: DTLSFingerprint, actual: DTLSFingerprint?)
    /// The client did not offer `use_srtp`, or nothing the relay accepts (RFC 5764 §4.1.1).
    case noSRTPProfile
    /// OpenSSL negotiated a profile id ParleySRTP does not implement.
    case unsupportedSRTPProfile(UInt16)
    /// `SSL_export_keying_material` failed; OpenSSL's error queue.
    case keyExport(String)
    /// The client stopped answering: OpenSSL gave up after its retransmission limit.
    case timedOut(String)
    /// A fatal alert or error after the handshake; OpenSSL's error queue.
    case connection(String)
}

/// What one call into a ``DTLSServer`` produced.
public struct DTLSOutcome: Sendable {
    /// Datagrams to send to the client, in order; each holds one or more whole DTLS records.
    public var datagrams: [[UInt8]]
    /// Set when this call moved the endpoint to a new state.
    public var newState: DTLSState?

    public init(datagrams: [[UInt8]] = [], newState: DTLSState? = nil) {
        self.datagrams = datagrams
        self.newState = newState
    }
}
