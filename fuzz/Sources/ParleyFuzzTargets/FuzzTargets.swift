import Foundation
import NIOCore
import ParleyDTLS
import ParleyFiles
import ParleyMultipart
@testable import ParleyProtocol
import ParleyRTP
import ParleySDP
import ParleySTUN

/// The fuzz targets by name. Each takes arbitrary bytes and must return: no trap, no sanitizer
/// report. Seeds live in fuzz/seeds/<name>/ (taken from the repo's fixtures and RFC vectors).
enum FuzzTargets {
    typealias Target = @Sendable (UnsafeRawBufferPointer) -> Void

    nonisolated(unsafe) static var selected: Target = { _ in }

    static let all: [String: Target] = [
        "stun": stun, "rtp": rtp, "rtcp": rtcp, "sdp": sdp, "dtls": dtls,
        "multipart": multipart, "command": command, "media": media,
    ]

    /// STUN (RFC 8489): parse, walk the attributes, check integrity and fingerprint.
    static func stun(_ bytes: UnsafeRawBufferPointer) {
        guard case .success(let message) = STUNMessage.parse(bytes) else { return }
        // RFC 5769's password, so that the seeds' MESSAGE-INTEGRITY verifies and mutants near them are checked.
        _ = message.verifyMessageIntegrity(bytes, key: STUNIntegrityKey(password: "VOkJxbRl1RmTxUk/WvJxBt"))
        _ = message.verifyFingerprint(bytes)
    }

    /// RTP (RFC 3550 §5, RFC 8285): the header, CSRCs and extension elements; and the same bytes
    /// as an RFC 4571 stream.
    static func rtp(_ bytes: UnsafeRawBufferPointer) {
        if case .success(let header) = RTPHeader.parse(bytes) {
            for index in 0..<header.csrcCount { _ = header.csrc(index, in: bytes) }
            var elements = RTPHeaderExtensionIterator(bytes, header: header)
            while elements.next() != nil {}
            _ = header.extensionIsWellFormed(in: bytes)
            for id in 0..<16 as Range<UInt8> {
                _ = header.absSendTime(id: id, in: bytes)
                _ = header.transportSequenceNumber(id: id, in: bytes)
                _ = header.audioLevel(id: id, in: bytes)
            }
            var copy = Array(bytes)
            _ = RTPPacketRewriter.rewrite(&copy, ssrc: 7, payloadType: 96)
            // The same bytes as an RTX packet (RFC 4588 §4): unwrapped in place, and wrapped
            // into a buffer of each size around the result.
            _ = RTPRetransmission.originalSequenceNumber(in: bytes, header: header)
            _ = RTPRetransmission.isPaddingOnly(header)
            var unwrapped = Array(bytes)
            _ = unwrapped.withUnsafeMutableBytes { RTPRetransmission.unwrap($0, header: header, payloadType: 96, ssrc: 7) }
            for extra in [0, 1, 2] {
                var destination = [UInt8](repeating: 0, count: bytes.count + extra)
                _ = destination.withUnsafeMutableBytes {
                    RTPRetransmission.wrap(bytes, header: header, into: $0, payloadType: 97, sequenceNumber: 1, ssrc: 8)
                }
            }
        }
        var offset = 0
        while offset < bytes.count,
              case .frame(let length) = RFC4571Frame.next(in: UnsafeRawBufferPointer(rebasing: bytes[offset...]), maxLength: 1500) {
            offset += RFC4571Frame.headerSize + length
        }
    }

    /// RTCP (RFC 3550 §6, RFC 4585, RFC 5104): a compound parsed, and its SSRCs rewritten.
    static func rtcp(_ bytes: UnsafeRawBufferPointer) {
        _ = RTCPPacket.parseCompound(bytes)
        var copy = Array(bytes)
        _ = RTCPRewriter.rewriteSSRCs(in: &copy, sender: SSRCMap([(1, 2)]), media: SSRCMap([(3, 4)]))
    }

    /// The relay's side of an answer, RTX allowed (so offers with `rtx` formats reach that code).
    static let relay: SDPRelayParameters = {
        var relay = SDPRelayParameters(
        iceUfrag: "fuzz", icePwd: "fuzzfuzzfuzzfuzzfuzzfuzz", fingerprintSHA256: Array(repeating: "AB", count: 32).joined(separator: ":"),
        address: "127.0.0.1", port: 50000, tcpPort: 50000,
        streams: ["0": SDPRelayStream(ssrc: 1, cname: "c", trackID: "a"), "1": SDPRelayStream(ssrc: 2, cname: "c", trackID: "v", rtxSSRC: 3)])
        relay.retransmissions = true
        return relay
    }()

    /// SDP (RFC 8866) as text: parsed, printed again, and answered as the relay would.
    static func sdp(_ bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self),
              let offer = try? SessionDescription(parsing: text) else { return }
        _ = offer.text
        if let answer = try? SDPAnswerer.answer(offer: offer, relay: relay) { _ = answer.sdp }
    }

    static let dtlsContext = try! DTLSContext()
    static let dtlsPeer = try! DTLSContext(role: .client).fingerprint

    /// DTLS records (RFC 6347 §4.1) as the relay's server endpoint takes them: the input is one
    /// or more datagrams, each after a two-byte length, fed to a fresh endpoint in order.
    static func dtls(_ bytes: UnsafeRawBufferPointer) {
        guard var server = try? DTLSServer(context: dtlsContext, remoteFingerprint: dtlsPeer) else { return }
        var offset = 0
        while offset + 2 <= bytes.count {
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            let end = min(offset + 2 + length, bytes.count)
            _ = server.receive(UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<end]))
            offset = end
        }
        if bytes.count < 2 { _ = server.receive(bytes) }
    }

    /// multipart/form-data (RFC 7578) through multipart-kit's streaming parser: the first line is
    /// the boundary, the first byte after it the size of the pieces the rest arrives in.
    static func multipart(_ bytes: UnsafeRawBufferPointer) {
        guard let newline = bytes.firstIndex(of: 0x0A), newline > 0, newline <= 70, newline + 1 < bytes.count else { return }
        let boundary = String(decoding: bytes[..<newline], as: UTF8.self)
        let step = Int(bytes[newline + 1] % 64) + 1
        let stream = MultipartStream(boundary: boundary)
        var offset = newline + 2
        while offset < bytes.count {
            let end = min(offset + step, bytes.count)
            guard (try? stream.feed(ByteBuffer(bytes: bytes[offset..<end]))) != nil else { return }
            offset = end
        }
        _ = try? stream.finish()
    }

    /// A realtime command frame (ParleyProtocol's one decoder); wherever the `message.send`
    /// fast path answers, it must answer as JSONDecoder does (every scalar of every field alike,
    /// not only `==`, which takes canonically equivalent text as equal).
    static func command(_ bytes: UnsafeRawBufferPointer) {
        let frame = Array(bytes)
        _ = CommandFrame.decode(frame)
        guard let fast = CommandFrame.decodeMessageSend(frame) else { return }
        let slow = CommandFrame.decodeWithJSONDecoder(frame)
        guard case .success(let expected) = slow,
              String(reflecting: fast).unicodeScalars.elementsEqual(String(reflecting: expected).unicodeScalars)
        else { fatalError("message.send fast path: \(fast) but JSONDecoder: \(slow)") }
    }

    /// The media probes (MediaProbe: MP4/MOV/HEIC, MP3, AAC, Ogg, WAV, PNG/JPEG/GIF).
    static func media(_ bytes: UnsafeRawBufferPointer) {
        _ = MediaProbe.probe(Array(bytes))
    }
}
