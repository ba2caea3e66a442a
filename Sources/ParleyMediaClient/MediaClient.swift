import ParleyDTLS
import ParleyRTP
import ParleySRTP
import ParleySTUN

/// A WebRTC endpoint in Swift for tests and load tests: it makes an offer for Opus audio and VP8
/// video, connects to the answerer over real UDP (or TCP, RFC 6544) — ICE as the controlling agent with
/// USE-CANDIDATE (RFC 8445 §7.2.2), DTLS client checked against the answer's fingerprint
/// (RFC 5763 §5), SRTP keys exported per RFC 5764 §4.2 — then sends and receives real media.
///
/// ```swift
/// let client = try await MediaClient()
/// let answer = try await signalling.exchange(client.offer)
/// try await client.connect(answer: answer)
/// let report = await client.runCall(for: .seconds(5))
/// ```
///
/// Not thread-safe: one task drives a client, and every call on it is made from that task.
public final class MediaClient {
    /// A decrypted packet from ``receive(for:rtpCount:)``.
    public struct ReceivedPacket: Sendable, Equatable {
        public var isRTCP: Bool
        public var bytes: [UInt8]
    }

    /// The sender's and receiver's counters after ``runCall(for:)``.
    public struct CallReport: Sendable, Equatable {
        public var sent: MediaSender.Statistics
        public var received: MediaReceiverStatistics
        public var srtpProtectFailures: Int
    }

    public let configuration: MediaClientConfiguration
    /// The ids this client offers and sends with.
    public let local: MediaOffer
    /// The parsed answer, once ``connect(answer:timeout:)`` has been called.
    public internal(set) var remote: RemoteAnswer?
    /// The negotiated SRTP profile, once connected.
    public var profile: SRTPProfile? { transport?.profile }

    let context: DTLSContext
    let link: MediaLink
    var transport: SRTPTransport?
    var dtls: DTLSClient?
    var iceCheck: (key: STUNIntegrityKey, username: String)?
    private var sender: MediaSender?
    private var receiver: MediaReceiver?
    private var nextConsent: ContinuousClock.Instant?

    public init(configuration: MediaClientConfiguration = MediaClientConfiguration()) async throws(MediaClientError) {
        if let shared = configuration.sharedMedia, !shared.matches(configuration) {
            throw .setup("shared media made for another tone, video size or frame rate")
        }
        let absID = configuration.absSendTimeExtensionID
        guard absID <= 14, absID == 0 || absID != configuration.midExtensionID else {
            throw .setup("abs-send-time extension id \(absID): needs 1…14 and not the mid's (RFC 8285 §4.2)")
        }
        _ = AbsSendTime.epoch  // start the shared clock before any packet is stamped
        self.configuration = configuration
        do { context = try DTLSContext(srtpProfiles: configuration.srtpProfiles, role: .client) } catch {
            throw .setup("DTLS context: \(error)")
        }
        local = MediaOffer(configuration: configuration, fingerprint: context.fingerprint.sdpValue)
        if configuration.impairment != nil, configuration.transport != .udp {
            throw .setup("a link impairment needs UDP (TCP would retransmit what it loses)")
        }
        link = try await MediaLink(host: configuration.bindHost, transport: configuration.transport, tick: .nanoseconds(configuration.tick.nanoseconds),
                                   impairment: configuration.impairment)
    }

    /// A client let go without ``close()`` closes its socket, which ends what runs on its event loop.
    deinit {
        link.close()
    }

    /// The offer SDP, with this client's socket as its only candidate (for TCP an active one).
    public var offer: String { local.sdp(host: configuration.bindHost, port: link.localPort, transport: configuration.transport) }

    /// Ends the call: DTLS close_notify (RFC 5246 §7.2.1) so the peer can let go at once, then
    /// closes the socket — on the event loop when the call's media runs there.
    public func close() {
        guard link.isDirect else { return closeNow() }
        let client = UncheckedBox(self)
        link.eventLoop.execute { client.value.closeNow() }
    }

    private func closeNow() {
        if dtls != nil { writeAll(dtls!.close()) }
        link.close()
    }

    /// Protects an RTP packet (or RTCP compound) with the call's SRTP keys and sends it (on the
    /// event loop when the call's media runs there, in order with what it sends).
    public func send(_ packet: [UInt8], rtcp: Bool = false) {
        guard let transport else { return }
        guard link.isDirect else {
            transport.send(packet, rtcp: rtcp, to: link)
            return link.flush()
        }
        let state = UncheckedBox((transport, link))
        link.eventLoop.execute {
            state.value.0.send(packet, rtcp: rtcp, to: state.value.1)
            state.value.1.flush()
        }
    }

    /// Sends bytes as they are (STUN, garbage) to the peer.
    public func sendRaw(_ bytes: [UInt8]) {
        guard link.isDirect else { return writeRaw(bytes) }
        let client = UncheckedBox(self)
        link.eventLoop.execute { client.value.writeRaw(bytes) }
    }

    func writeRaw(_ bytes: [UInt8]) {
        link.write(bytes)
        link.flush()
    }

    /// The RTP and RTCP that arrive and authenticate within `duration`, decrypted — or less time,
    /// once `rtpCount` RTP packets are in. For tests that check packets one by one. A call's
    /// media running on the event loop (``runCall(for:)``) stops first.
    public func receive(for duration: Duration, rtpCount: Int? = nil) async -> [ReceivedPacket] {
        if link.isDirect { await link.runOnEventLoop(nil) }
        var received: [ReceivedPacket] = []
        var rtp = 0
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline, let event = await link.next() {
            guard case .datagram(var bytes) = event else { continue }
            guard let transport, PacketKind.classify(firstByte: bytes.first ?? 0) == .rtpOrRTCP, bytes.count > 1 else {
                handleControl(bytes)
                continue
            }
            let isRTCP = PacketKind.isRTCP(secondByte: bytes[1])
            guard let length = transport.unprotect(&bytes, rtcp: isRTCP) else { continue }
            received.append(ReceivedPacket(isRTCP: isRTCP, bytes: Array(bytes.prefix(length))))
            if !isRTCP { rtp += 1 }
            if let rtpCount, rtp >= rtpCount { break }
        }
        return received
    }

    /// Sends and receives media for `duration`: the tone and moving pattern out, and whatever
    /// comes back decoded and checked. May be called again to continue the same streams: the
    /// report's counters, histogram and jitter are cumulative over every call, so a harness can
    /// run a call in slices and difference the reports.
    ///
    /// The media runs on the socket's event loop, every packet and tick handled where it
    /// happens (``MediaLink/Direct``), and keeps running between slices until ``close()`` (or
    /// ``receive(for:rtpCount:)``); this task only waits and then reads the counters there.
    /// Throws only before any media flows: when not connected or a codec cannot be opened.
    public func runCall(for duration: Duration) async throws(MediaClientError) -> CallReport {
        guard let transport, let remote else { throw .setup("not connected") }
        // Time zero is taken once the encoders are open: opening them (libvpx, Opus) is set-up,
        // not the path a frame takes, and on a busy machine it alone can take a second.
        if self.sender == nil { self.sender = try MediaSender(offer: local, configuration: configuration) }
        let now = ContinuousClock.now
        if self.receiver == nil { self.receiver = try makeReceiver(remote: remote, transport: transport, start: now) }
        guard let sender, let receiver else { throw .setup("media") }
        let deadline = now + duration
        if !link.isDirect {
            // Consent (RFC 7675 §5.1) every 5 s across calls of this method: a run in 1 s slices
            // must not restart the count each time, or the answerer's consent runs out.
            if nextConsent == nil { nextConsent = now + .seconds(5) }
            // Whatever the stream still holds was read before the handover: handled first.
            while let event = link.takePending() {
                if case .datagram(var bytes) = event { handleMedia(&bytes, sender: sender, receiver: receiver, transport: transport) }
            }
            sender.sendDue(now: now, transport: transport, link: link)
            // Held weakly: a client dropped without close() ends (deinit) rather than running on.
            weak let client = self
            await link.runOnEventLoop(MediaLink.Direct(
                datagram: { bytes in client?.handleMedia(&bytes, sender: sender, receiver: receiver, transport: transport) },
                tick: { client?.tickMedia(sender: sender, receiver: receiver, transport: transport) }))
        }
        try? await Task.sleep(until: deadline)
        let state = UncheckedBox((sender, receiver, transport))
        let report = try? await link.eventLoop.submit {
            CallReport(sent: state.value.0.statistics, received: state.value.1.statistics,
                       srtpProtectFailures: state.value.2.drops.protectFailures)
        }.get()
        return report ?? CallReport(sent: sender.statistics, received: receiver.statistics,
                                    srtpProtectFailures: transport.drops.protectFailures)
    }

    /// One packet of a running call (on the event loop).
    private func handleMedia(_ bytes: inout [UInt8], sender: MediaSender, receiver: MediaReceiver, transport: SRTPTransport) {
        guard PacketKind.classify(firstByte: bytes.first ?? 0) == .rtpOrRTCP else { return handleControl(bytes) }
        for packet in receiver.receive(&bytes, transport: transport, now: ContinuousClock.now) { sender.handle(packet) }
        sender.resendNACKed(transport: transport, link: link)
    }

    /// One clock tick of a running call (on the event loop): what is due is sent, held packets
    /// released, NACKs repeated, consent refreshed.
    private func tickMedia(sender: MediaSender, receiver: MediaReceiver, transport: SRTPTransport) {
        let now = ContinuousClock.now
        sender.sendDue(now: now, transport: transport, link: link)
        receiver.tick(now: now)
        if let due = nextConsent, now >= due { sendConsentCheck(); nextConsent = now + .seconds(5) }
    }

    private func makeReceiver(remote: RemoteAnswer, transport: SRTPTransport,
                              start: ContinuousClock.Instant) throws(MediaClientError) -> MediaReceiver {
        let localVideo = local.videoSSRC, link = self.link
        return try MediaReceiver(
            audioPayloadType: remote.audioPayloadType ?? local.audioPayloadType,
            videoPayloadType: remote.videoPayloadType ?? local.videoPayloadType,
            videoRTXPayloadType: remote.videoRTXPayloadType,
            expectedTone: configuration.toneFrequency, start: start, library: configuration.sharedMedia,
            decodes: configuration.decodesMedia, absSendTimeExtensionID: remote.absSendTimeExtensionID,
            videoReorderWait: configuration.videoReorderWait, audioReorderWait: configuration.audioReorderWait,
            firstNACKDelay: configuration.firstNACKDelay, playoutDelay: configuration.videoPlayoutDelay,
            sendNACK: configuration.sendsNACK ? { [unowned transport] mediaSSRC, lost in
                transport.send(RTCPBuilder.genericNACK(senderSSRC: localVideo, mediaSSRC: mediaSSRC, lostSequenceNumbers: lost),
                               rtcp: true, to: link)
                link.flush()
            } : nil
        ) { [unowned transport] mediaSSRC in
            // RFC 4585 §6.3.1: sender SSRC ours, media SSRC the stream that needs a key frame.
            transport.send(RTCPBuilder.pictureLossIndication(senderSSRC: localVideo, mediaSSRC: mediaSSRC),
                           rtcp: true, to: link)
            link.flush()
        }
    }
}
