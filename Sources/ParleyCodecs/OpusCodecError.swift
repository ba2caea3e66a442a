/// Why an Opus call failed. Bad input never traps: it comes back as one of these.
public enum OpusCodecError: Error, Equatable, Sendable {
    /// A parameter outside what this wrapper supports (e.g. 3 channels, a PCM buffer of the wrong size).
    case invalidArgument(String)
    /// An empty packet: RFC 6716 §3.1 — a packet has at least the TOC byte. Use `decodeLoss()` for a lost packet.
    case emptyPacket
    /// libopus refused: `code` is the `OPUS_*` error (e.g. -4 `OPUS_INVALID_PACKET`), `message` its `opus_strerror`.
    case library(code: Int32, message: String)
}
