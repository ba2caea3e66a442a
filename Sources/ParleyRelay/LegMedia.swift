import ParleySDP

/// The two kinds of media the relay forwards.
public enum RelayMediaKind: Int, Sendable, Hashable, CaseIterable {
    case audio = 0
    case video = 1

    init?(_ kind: SDPMediaKind) {
        switch kind {
        case .audio: self = .audio
        case .video: self = .video
        default: return nil
        }
    }
}

/// What one leg agreed for one kind of media: the identifiers the relay must use when it
/// sends to this leg, and the ones it will see from it.
public struct LegMediaSection: Sendable, Hashable {
    public var kind: RelayMediaKind
    public var mid: String
    /// The one payload type negotiated (Opus or VP8) — in both directions, as WebRTC does.
    public var payloadType: UInt8
    public var clockRate: Int
    /// `a=extmap` both sides kept, with the ids this leg uses (RFC 8285 §5).
    public var headerExtensions: [SDPExtMap]
    /// SSRCs the client announced (`a=ssrc`, RFC 5576) or was seen sending with, primary first.
    public var remoteSSRCs: [UInt32]
    /// The SSRC the relay sends with in this section (the answer's `a=ssrc`).
    public var localSSRC: UInt32
    /// Whether the relay may send in this section (answer direction sendrecv/sendonly).
    public var relaySends: Bool
    /// The RTX payload type negotiated for the codec (RFC 4588), the same both ways; nil without RTX.
    public var rtxPayloadType: UInt8?
    /// The SSRC of the relay's RTX stream in this section (the answer's FID pair), with RTX.
    public var localRTXSSRC: UInt32?

    public init(kind: RelayMediaKind, mid: String, payloadType: UInt8, clockRate: Int, headerExtensions: [SDPExtMap],
                remoteSSRCs: [UInt32], localSSRC: UInt32, relaySends: Bool,
                rtxPayloadType: UInt8? = nil, localRTXSSRC: UInt32? = nil) {
        self.rtxPayloadType = rtxPayloadType
        self.localRTXSSRC = localRTXSSRC
        self.kind = kind
        self.mid = mid
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.headerExtensions = headerExtensions
        self.remoteSSRCs = remoteSSRCs
        self.localSSRC = localSSRC
        self.relaySends = relaySends
    }

    /// The client's main stream SSRC, once known.
    public var remotePrimarySSRC: UInt32? { remoteSSRCs.first }

    /// The id this leg uses for the extension `uri`.
    public func extensionID(_ uri: String) -> UInt8? {
        headerExtensions.first { $0.uri == uri }?.id
    }
}

/// A leg's media: at most one forwarded section per kind (a 1:1 call has one audio and one
/// video track each way; further sections of a kind are answered but not forwarded).
public struct LegMedia: Sendable, Hashable {
    public private(set) var audio: LegMediaSection?
    public private(set) var video: LegMediaSection?
    /// Payload type → kind + 1 (0: not negotiated); 128 entries, so lookups never allocate.
    private var kindsByPayloadType: [UInt8] = Array(repeating: 0, count: 128)

    public init(sections: [LegMediaSection]) {
        for section in sections {
            switch section.kind {
            case .audio where audio == nil: audio = section
            case .video where video == nil: video = section
            default: continue
            }
            kindsByPayloadType[Int(section.payloadType & 0x7F)] = UInt8(section.kind.rawValue + 1)
        }
    }

    /// The sections of an answer, with the SSRCs the relay chose per mid (and for its RTX
    /// streams, where RTX was negotiated).
    public init(negotiation: SDPNegotiation, localSSRCs: [String: UInt32], localRTXSSRCs: [String: UInt32] = [:]) {
        var sections: [LegMediaSection] = []
        for media in negotiation.accepted {
            guard let kind = RelayMediaKind(media.kind), let codec = media.codec, let mid = media.mid,
                  let ssrc = localSSRCs[mid] else { continue }
            var remote = media.remoteSSRCs
            if let primary = media.remotePrimarySSRC, let index = remote.firstIndex(of: primary) {
                remote.remove(at: index)
                remote.insert(primary, at: 0)
            }
            sections.append(LegMediaSection(
                kind: kind, mid: mid, payloadType: codec.payloadType, clockRate: codec.clockRate,
                headerExtensions: media.headerExtensions, remoteSSRCs: remote, localSSRC: ssrc,
                relaySends: media.localDirection.sends,
                rtxPayloadType: localRTXSSRCs[mid] == nil ? nil : codec.rtxPayloadType,
                localRTXSSRC: codec.rtxPayloadType == nil ? nil : localRTXSSRCs[mid]))
        }
        self.init(sections: sections)
    }

    public subscript(kind: RelayMediaKind) -> LegMediaSection? {
        kind == .audio ? audio : video
    }

    /// The kind a payload type stands for on this leg; nil when not negotiated.
    @inline(__always)
    public func kind(ofPayloadType payloadType: UInt8) -> RelayMediaKind? {
        let value = kindsByPayloadType.withUnsafeBufferPointer { $0[Int(payloadType & 0x7F)] }
        return value == 0 ? nil : RelayMediaKind(rawValue: Int(value) - 1)
    }

    /// Whether `ssrc` is the primary SSRC already known for `kind`.
    @inline(__always)
    public func isPrimary(_ ssrc: UInt32, for kind: RelayMediaKind) -> Bool {
        // Read through the stored sections, not `self[kind]`: no section copy per packet.
        (kind == .audio ? audio?.remoteSSRCs.first : video?.remoteSSRCs.first) == ssrc
    }

    /// The RTP clock rate negotiated for `kind` (read per packet for jitter).
    @inline(__always)
    public func clockRate(of kind: RelayMediaKind) -> Int? {
        kind == .audio ? audio?.clockRate : video?.clockRate
    }

    /// Makes `ssrc` the client's primary SSRC for `kind` (learned from its RTP, for offers without
    /// `a=ssrc` or a client that changed SSRC). Returns whether anything changed.
    @discardableResult
    public mutating func learnRemoteSSRC(_ ssrc: UInt32, for kind: RelayMediaKind) -> Bool {
        func update(_ section: inout LegMediaSection?) -> Bool {
            guard var value = section, value.remotePrimarySSRC != ssrc else { return false }
            value.remoteSSRCs.removeAll { $0 == ssrc }
            value.remoteSSRCs.insert(ssrc, at: 0)
            if value.remoteSSRCs.count > 8 { value.remoteSSRCs.removeLast() }
            section = value
            return true
        }
        return kind == .audio ? update(&audio) : update(&video)
    }
}

extension LegMedia {
    /// What the packet path asks of a leg's media for every RTP packet (kind by payload type,
    /// primary SSRC, clock rate), as plain values. Asking ``LegMedia`` itself through a class
    /// property copies the whole struct — its sections' strings and arrays, retained and released
    /// — on every packet; ``RelayLeg`` keeps one of these beside its media instead.
    public struct Lookup: Sendable, Hashable {
        var audioPayloadType: UInt8?
        var videoPayloadType: UInt8?
        var audioPrimarySSRC: UInt32?
        var videoPrimarySSRC: UInt32?
        var audioClockRate: Int?
        var videoClockRate: Int?
        /// RFC 4588: the client's video RTX payload type, and the relay's RTX SSRC to it.
        public private(set) var videoRTXPayloadType: UInt8?
        public private(set) var videoRTXSSRC: UInt32?

        public init(_ media: LegMedia) {
            // A payload type stands for the kind the table gives it, as in `kind(ofPayloadType:)`.
            if let audio = media.audio, media.kind(ofPayloadType: audio.payloadType) == .audio {
                audioPayloadType = audio.payloadType & 0x7F
            }
            if let video = media.video, media.kind(ofPayloadType: video.payloadType) == .video {
                videoPayloadType = video.payloadType & 0x7F
            }
            audioPrimarySSRC = media.audio?.remotePrimarySSRC
            videoPrimarySSRC = media.video?.remotePrimarySSRC
            audioClockRate = media.audio?.clockRate
            videoClockRate = media.video?.clockRate
            if let video = media.video, let rtx = video.rtxPayloadType, let ssrc = video.localRTXSSRC {
                videoRTXPayloadType = rtx & 0x7F
                videoRTXSSRC = ssrc
            }
        }

        /// Whether `payloadType` is the leg's video RTX payload type.
        @inline(__always)
        public func isRTX(_ payloadType: UInt8) -> Bool {
            videoRTXPayloadType != nil && payloadType & 0x7F == videoRTXPayloadType
        }

        /// ``LegMedia/kind(ofPayloadType:)``.
        @inline(__always)
        public func kind(ofPayloadType payloadType: UInt8) -> RelayMediaKind? {
            let payloadType = payloadType & 0x7F
            if payloadType == audioPayloadType { return .audio }
            if payloadType == videoPayloadType { return .video }
            return nil
        }

        /// ``LegMedia/isPrimary(_:for:)``.
        @inline(__always)
        public func isPrimary(_ ssrc: UInt32, for kind: RelayMediaKind) -> Bool {
            (kind == .audio ? audioPrimarySSRC : videoPrimarySSRC) == ssrc
        }

        /// ``LegMedia/clockRate(of:)``.
        @inline(__always)
        public func clockRate(of kind: RelayMediaKind) -> Int? {
            kind == .audio ? audioClockRate : videoClockRate
        }
    }
}
