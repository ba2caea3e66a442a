import Foundation
import NIOCore
import NIOPosix
import ParleyDTLS
import ParleyRTP
import ParleySDP
import ParleySRTP
import ParleySTUN
import Testing
@testable import ParleyRelay

/// A WebRTC client written here, for tests that need exact control of the packets: ICE
/// controlling (RFC 8445 §7.2, nominating with USE-CANDIDATE), DTLS client (`a=setup:actpass`,
/// the relay answers passive), SRTP with the client's keys (RFC 5764 §4.2). Not thread-safe:
/// one test task drives it.
final class SwiftMediaClient {
    enum Event {
        case datagram([UInt8])
        case tick
    }

    struct Received {
        var isRTCP: Bool
        var bytes: [UInt8]
    }

    enum ClientError: Error {
        case timedOut(String)
        case dtls(String)
    }

    let ufrag = LegFactory.randomICEString(length: 8)
    let password = LegFactory.randomICEString(length: 24)
    let audioSSRC: UInt32
    let videoSSRC: UInt32
    let audioPayloadType: UInt8
    let videoPayloadType: UInt8
    let mids: (audio: String, video: String)
    let context: DTLSContext
    private let channel: any Channel
    private var inbox: AsyncStream<Event>.Iterator
    private var relayAddress: SocketAddress?
    private var inbound: SRTPSession?
    private var outbound: SRTPSession?
    private(set) var profile: SRTPProfile?

    init(srtpProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80], audioPayloadType: UInt8 = 111,
         videoPayloadType: UInt8 = 96, mids: (audio: String, video: String) = ("0", "1")) async throws {
        context = try DTLSContext(srtpProfiles: srtpProfiles, role: .client)
        audioSSRC = UInt32.random(in: 1...UInt32.max)
        videoSSRC = UInt32.random(in: 1...UInt32.max)
        self.audioPayloadType = audioPayloadType
        self.videoPayloadType = videoPayloadType
        self.mids = mids
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Inbox(continuation))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let loop = channel.eventLoop
        loop.scheduleRepeatedTask(initialDelay: .milliseconds(20), delay: .milliseconds(20)) { task in
            if case .terminated = continuation.yield(.tick) { task.cancel() }
        }
        inbox = stream.makeAsyncIterator()
    }

    deinit {
        channel.close(promise: nil)
    }

    /// A Chrome-like BUNDLE offer: Opus and VP8 (+ an RTX the relay must leave out), mid extension.
    var offer: String {
        let port = channel.localAddress?.port ?? 9
        func section(_ kind: String, _ pt: UInt8, _ codec: String, _ mid: String, _ ssrc: UInt32) -> String {
            """
            m=\(kind) \(port) UDP/TLS/RTP/SAVPF \(pt)\(kind == "video" ? " \(pt + 1)" : "")\r
            c=IN IP4 127.0.0.1\r
            a=mid:\(mid)\r
            a=sendrecv\r
            a=rtcp-mux\r
            a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=ice-ufrag:\(ufrag)\r
            a=ice-pwd:\(password)\r
            a=fingerprint:\(context.fingerprint.sdpValue)\r
            a=setup:actpass\r
            a=rtpmap:\(pt) \(codec)\r
            \(kind == "video" ? "a=rtcp-fb:\(pt) nack pli\r\na=rtpmap:\(pt + 1) rtx/90000\r\na=fmtp:\(pt + 1) apt=\(pt)\r\n" : "")\
            a=ssrc:\(ssrc) cname:swift-client\r
            a=candidate:1 1 udp 2130706431 127.0.0.1 \(port) typ host\r

            """
        }
        return "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE \(mids.audio) \(mids.video)\r\n"
            + section("audio", audioPayloadType, "opus/48000/2", mids.audio, audioSSRC)
            + section("video", videoPayloadType, "VP8/90000", mids.video, videoSSRC)
    }

    /// ICE then DTLS against the answer; returns the negotiated SRTP profile.
    @discardableResult
    func connect(answer: String, timeout: Duration = .seconds(10)) async throws -> SRTPProfile {
        let session = try SessionDescription(parsing: answer)
        let media = try #require(session.media.first { $0.port != 0 })
        let relayUfrag = try #require(media.iceUfrag)
        let relayPassword = try #require(media.icePwd)
        let candidate = try #require(media.attributes.first { $0.name == "candidate" }?.value).split(separator: " ")
        let address = try SocketAddress(ipAddress: String(candidate[4]), port: Int(candidate[5])!)
        relayAddress = address
        let fingerprint = try #require(media.fingerprints.first.flatMap { DTLSFingerprint(sdp: "\($0.algorithm) \($0.value)") })
        let deadline = ContinuousClock.now + timeout

        // ICE (RFC 8445 §7.2.2): one nominating check, repeated until answered.
        let key = STUNIntegrityKey(password: relayPassword)
        let transaction = STUNTransactionID.random()
        let check = STUNMessageBuilder.bindingRequest(
            transactionID: transaction, username: "\(relayUfrag):\(ufrag)", priority: 2_130_706_431,
            role: .controlling(tieBreaker: .random(in: 0...UInt64.max)), useCandidate: true, key: key)
        var answered = false
        var sinceSent = 100
        while !answered {
            guard ContinuousClock.now < deadline else { throw ClientError.timedOut("ICE") }
            if sinceSent >= 5 { write(check); sinceSent = 0 }
            switch await inbox.next() {
            case .datagram(let bytes):
                if case .success(let response) = STUNMessage.parse(bytes), response.transactionID == transaction,
                   response.type == .bindingSuccessResponse, response.verifyMessageIntegrity(bytes, key: key) {
                    answered = true
                }
            case .tick: sinceSent += 1
            case nil: throw ClientError.timedOut("socket closed")
            }
        }

        // DTLS client (RFC 6347) until keys are exported.
        var dtls = try DTLSClient(context: context, remoteFingerprint: fingerprint, initialRetransmissionTimeout: .milliseconds(200))
        for datagram in dtls.start().datagrams { write(datagram) }
        while true {
            guard ContinuousClock.now < deadline else { throw ClientError.timedOut("DTLS") }
            var outcome = DTLSOutcome()
            switch await inbox.next() {
            case .datagram(let bytes) where PacketKind.classify(firstByte: bytes.first ?? 0) == .dtls:
                outcome = bytes.withUnsafeBytes { dtls.receive($0) }
            case .datagram: continue
            case .tick:
                if let timeout = dtls.nextTimeout, timeout <= .zero { outcome = dtls.handleTimeout() }
            case nil: throw ClientError.timedOut("socket closed")
            }
            for datagram in outcome.datagrams { write(datagram) }
            switch outcome.newState {
            case .connected(let keys)?:
                inbound = try SRTPSession(profile: keys.profile, key: keys.clientInbound, direction: .inbound)
                outbound = try SRTPSession(profile: keys.profile, key: keys.clientOutbound, direction: .outbound)
                profile = keys.profile
                return keys.profile
            case .failed(let failure)?: throw ClientError.dtls("\(failure)")
            case .closed?: throw ClientError.dtls("closed")
            case .handshaking?, nil: continue
            }
        }
    }

    /// Protects and sends an RTP packet or RTCP compound.
    func send(_ packet: [UInt8], rtcp: Bool = false) {
        guard outbound != nil else { return }
        var buffer = packet + [UInt8](repeating: 0, count: 64)
        var length = packet.count
        let status = buffer.withUnsafeMutableBytes { bytes in
            rtcp ? outbound!.protectRTCP(bytes, length: &length) : outbound!.protectRTP(bytes, length: &length)
        }
        precondition(status == .ok, "protect: \(status)")
        write(Array(buffer.prefix(length)))
    }

    /// Sends raw bytes to the relay.
    func write(_ bytes: [UInt8]) {
        guard let relayAddress else { return }
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: relayAddress, data: channel.allocator.buffer(bytes: bytes)),
                              promise: nil)
    }

    /// Everything that arrives and authenticates for `duration`, decrypted.
    /// What arrives within `duration`, or sooner once `rtpCount` RTP packets are in (a loaded
    /// machine may be slow; a count keeps the test from depending on timing).
    func receive(for duration: Duration, rtpCount: Int? = nil) async -> [Received] {
        var received: [Received] = []
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline, let event = await inbox.next() {
            guard case .datagram(var bytes) = event, PacketKind.classify(firstByte: bytes.first ?? 0) == .rtpOrRTCP,
                  bytes.count > 1 else { continue }
            let isRTCP = PacketKind.isRTCP(secondByte: bytes[1])
            var length = bytes.count
            let status = bytes.withUnsafeMutableBytes { buffer in
                isRTCP ? inbound!.unprotectRTCP(buffer, length: &length) : inbound!.unprotectRTP(buffer, length: &length)
            }
            if status == .ok { received.append(Received(isRTCP: isRTCP, bytes: Array(bytes.prefix(length)))) }
            if let rtpCount, received.filter({ !$0.isRTCP }).count >= rtpCount { break }
        }
        return received
    }

    private final class Inbox: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let continuation: AsyncStream<Event>.Continuation
        init(_ continuation: AsyncStream<Event>.Continuation) { self.continuation = continuation }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            continuation.yield(.datagram(Array(unwrapInboundIn(data).data.readableBytesView)))
        }
        func channelInactive(context: ChannelHandlerContext) { continuation.finish() }
    }
}
