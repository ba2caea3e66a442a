/// Why setting up a call failed. Only setup throws; the media path counts drops instead.
public enum MediaClientError: Error, Sendable, Equatable {
    /// The answer SDP lacks something the client needs.
    case badAnswer(String)
    /// No answer to the ICE check, or no DTLS handshake, before the deadline.
    case timedOut(String)
    /// The DTLS handshake failed (including a certificate that does not match the answer).
    case dtls(String)
    /// Creating the socket, DTLS context, SRTP sessions or codecs failed.
    case setup(String)
    /// The socket closed.
    case closed
}
