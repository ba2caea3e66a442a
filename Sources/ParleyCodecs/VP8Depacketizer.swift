/// A VP8 frame put back together from RTP payloads.
public struct VP8DepacketizedFrame: Equatable, Sendable {
    /// The VP8 bitstream, ready for `VP8Decoder`.
    public var data: [UInt8]
    /// From the VP8 payload header (RFC 7741 §4.3): P=0 in the first octet marks a key frame.
    public var isKeyFrame: Bool
    /// The PictureID carried in the descriptor, if any.
    public var pictureID: UInt16?
    /// RTP sequence numbers of the frame's first and last packet.
    public var firstSequenceNumber: UInt16
    public var lastSequenceNumber: UInt16
}

/// Reassembles VP8 frames from RTP payloads in sequence order (RFC 7741 §4.5).
///
/// A frame begins with S=1, PID=0 and ends with the RTP marker bit. A gap in sequence numbers, a
/// PictureID change mid-frame or a new start before the marker discards the frame being built, so
/// only whole frames reach the decoder. After any loss `needsKeyFrame` stays set until a key frame
/// is delivered — the cue to send a PLI (RFC 4585 §6.3.1). Never throws, never traps: each payload
/// yields an `Outcome`, and drops are counted.
public struct VP8Depacketizer: Sendable {
    public enum Outcome: Equatable, Sendable {
        /// The payload was kept; the frame is not finished yet.
        case incomplete
        /// The payload finished a frame.
        case frame(VP8DepacketizedFrame)
        /// The payload was not used.
        case dropped(DropReason)
    }

    public enum DropReason: Equatable, Sendable {
        /// The descriptor could not be parsed; the frame in progress is discarded too.
        case malformed(VP8PayloadError)
        /// `count` packets are missing before this one; the frame they belonged to is lost.
        case packetsLost(count: Int)
        /// A continuation packet with no frame start before it (its start was lost or discarded).
        case noFrameStart
        /// A continuation packet whose PictureID differs from the frame in progress.
        case pictureIDMismatch
        /// A sequence number at or before one already seen (duplicate or reordered).
        case outOfOrder
        /// The frame grew beyond `maxFrameSize`.
        case frameTooLarge
    }

    /// Running counters, for metrics and tests.
    public struct Statistics: Equatable, Sendable {
        public var framesDelivered = 0
        public var framesDiscarded = 0
        public var packetsLost = 0
        public var payloadsDropped = 0
    }

    public private(set) var statistics = Statistics()
    /// Set by any loss or discard; cleared when a key frame is delivered.
    public private(set) var needsKeyFrame = true
    /// Frames larger than this are discarded rather than buffered.
    public let maxFrameSize: Int

    private var buffer: [UInt8] = []
    private var assembling = false
    private var frameIsKey = false
    private var framePictureID: UInt16?
    private var firstSequence: UInt16 = 0
    private var lastSequence: UInt16?

    public init(maxFrameSize: Int = 4 << 20) {
        self.maxFrameSize = maxFrameSize
    }

    /// Feeds one RTP payload with its header's sequence number and marker bit.
    public mutating func push(_ payload: [UInt8], sequenceNumber: UInt16, marker: Bool) -> Outcome {
        var lost = 0
        if let last = lastSequence {
            let delta = sequenceNumber &- last
            if delta == 0 || delta >= 0x8000 { return drop(.outOfOrder, discardFrame: false) }
            lost = Int(delta) - 1
        }
        lastSequence = sequenceNumber
        if lost > 0 {
            statistics.packetsLost += lost
            discardFrame()
            needsKeyFrame = true
        }

        let descriptor: VP8PayloadDescriptor
        let headerLength: Int
        switch VP8PayloadDescriptor.parse(payload) {
        case .failure(let error): return drop(.malformed(error), discardFrame: true)
        case .success(let parsed): (descriptor, headerLength) = parsed
        }

        if descriptor.startsFrame {
            if assembling { discardFrame() }
            assembling = true
            buffer.removeAll(keepingCapacity: true)
            // RFC 7741 §4.3: the first octet of the VP8 payload header holds P, the inverse key frame flag.
            frameIsKey = payload[headerLength] & 0x01 == 0
            framePictureID = descriptor.pictureID?.value
            firstSequence = sequenceNumber
        } else if !assembling {
            return drop(lost > 0 ? .packetsLost(count: lost) : .noFrameStart, discardFrame: false)
        } else if let id = descriptor.pictureID?.value, framePictureID != nil, id != framePictureID {
            return drop(.pictureIDMismatch, discardFrame: true)
        }

        guard buffer.count + payload.count - headerLength <= maxFrameSize else {
            return drop(.frameTooLarge, discardFrame: true)
        }
        buffer.append(contentsOf: payload[headerLength...])
        guard marker else { return .incomplete }

        assembling = false
        statistics.framesDelivered += 1
        if frameIsKey { needsKeyFrame = false }
        return .frame(VP8DepacketizedFrame(data: buffer, isKeyFrame: frameIsKey, pictureID: framePictureID,
                                           firstSequenceNumber: firstSequence, lastSequenceNumber: sequenceNumber))
    }

    /// Forgets the frame in progress and the sequence history (e.g. on an SSRC change).
    public mutating func reset() {
        discardFrame()
        lastSequence = nil
        needsKeyFrame = true
    }

    private mutating func discardFrame() {
        if assembling {
            statistics.framesDiscarded += 1
            needsKeyFrame = true
        }
        assembling = false
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func drop(_ reason: DropReason, discardFrame discard: Bool) -> Outcome {
        statistics.payloadsDropped += 1
        if discard { discardFrame() }
        return .dropped(reason)
    }
}
