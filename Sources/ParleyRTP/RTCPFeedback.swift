/// Feedback message types (FMT) the relay understands (RFC 4585 §6.1, RFC 5104 §4.3).
public enum RTCPFeedbackFormat {
    /// Generic NACK, PT 205 (RFC 4585 §6.2.1).
    public static let genericNACK: UInt8 = 1
    /// Transport-wide congestion control feedback, PT 205
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1).
    public static let transportCC: UInt8 = 15
    /// Picture Loss Indication, PT 206 (RFC 4585 §6.3.1).
    public static let pictureLossIndication: UInt8 = 1
    /// Full Intra Request, PT 206 (RFC 5104 §4.3.1).
    public static let fullIntraRequest: UInt8 = 4
    /// Application layer feedback, PT 206, here REMB (draft-alvestrand-rmcat-remb-03 §2.2).
    public static let applicationLayer: UInt8 = 15
}

/// Generic NACK, PT 205 FMT 1 (RFC 4585 §6.2.1): lost packets as PID + 16-bit bitmask pairs.
public struct RTCPGenericNACK: Sendable, Hashable {
    /// One FCI entry: a lost packet id and a bitmask of the 16 packets after it (BLP).
    public struct Item: Sendable, Hashable {
        public var packetID: UInt16
        public var bitmask: UInt16
        public init(packetID: UInt16, bitmask: UInt16) {
            self.packetID = packetID
            self.bitmask = bitmask
        }
    }

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var items: [Item]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, items: [Item]) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.items = items
    }

    /// Packs lost sequence numbers, in order, into as few items as possible.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) {
        var items: [Item] = []
        for sequence in lostSequenceNumbers {
            if let last = items.last {
                let distance = sequence &- last.packetID
                if distance == 0 { continue }
                if distance <= 16 {
                    items[items.count - 1].bitmask |= 1 << (distance - 1)
                    continue
                }
            }
            items.append(Item(packetID: sequence, bitmask: 0))
        }
        self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, items: items)
    }

    /// Every sequence number the items report lost, in order.
    public var lostSequenceNumbers: [UInt16] {
        var out: [UInt16] = []
        for item in items {
            out.append(item.packetID)
            for bit in 0..<16 where item.bitmask & (1 << bit) != 0 {
                out.append(item.packetID &+ UInt16(bit + 1))
            }
        }
        return out
    }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        let count = (view.bodyRange.count - 8) / 4
        self.init(senderSSRC: bytes.readBE32(at: base), mediaSSRC: bytes.readBE32(at: base + 4),
                  items: (0..<count).map {
                      Item(packetID: bytes.readBE16(at: base + 8 + 4 * $0), bitmask: bytes.readBE16(at: base + 10 + 4 * $0))
                  })
    }
}

/// Picture Loss Indication, PT 206 FMT 1 (RFC 4585 §6.3.1): no FCI.
public struct RTCPPictureLossIndication: Sendable, Hashable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }
}

/// Full Intra Request, PT 206 FMT 4 (RFC 5104 §4.3.1). The media source field is unused (0);
/// the targets are in the FCI entries.
public struct RTCPFullIntraRequest: Sendable, Hashable {
    /// One FCI entry: the SSRC asked for a key frame and a command sequence number.
    public struct Entry: Sendable, Hashable {
        public var ssrc: UInt32
        public var sequenceNumber: UInt8
        public init(ssrc: UInt32, sequenceNumber: UInt8) {
            self.ssrc = ssrc
            self.sequenceNumber = sequenceNumber
        }
    }

    public var senderSSRC: UInt32
    public var entries: [Entry]

    public init(senderSSRC: UInt32, entries: [Entry]) {
        self.senderSSRC = senderSSRC
        self.entries = entries
    }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        let count = (view.bodyRange.count - 8) / 8
        self.init(senderSSRC: bytes.readBE32(at: base),
                  entries: (0..<count).map {
                      Entry(ssrc: bytes.readBE32(at: base + 8 + 8 * $0), sequenceNumber: bytes[base + 12 + 8 * $0])
                  })
    }
}

/// Receiver Estimated Maximum Bitrate, PT 206 FMT 15 with "REMB"
/// (draft-alvestrand-rmcat-remb-03 §2.2). Recognised so it can be passed on with SSRCs mapped.
public struct RTCPREMB: Sendable, Hashable {
    public var senderSSRC: UInt32
    /// Bits per second: mantissa × 2^exponent.
    public var bitrate: UInt64
    /// The SSRCs the estimate applies to.
    public var ssrcs: [UInt32]

    public init(senderSSRC: UInt32, bitrate: UInt64, ssrcs: [UInt32]) {
        self.senderSSRC = senderSSRC
        self.bitrate = bitrate
        self.ssrcs = ssrcs
    }

    /// "REMB" in ASCII.
    static let identifier: UInt32 = 0x5245_4D42

    static func isREMB(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) -> Bool {
        view.packetType == RTCPPacketType.payloadFeedback && view.format == RTCPFeedbackFormat.applicationLayer
            && view.bodyRange.count >= 16 && bytes.readBE32(at: view.bodyRange.lowerBound + 8) == identifier
    }

    /// Body size needed for the SSRC count the packet states.
    static func requiredBody(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) -> Int {
        16 + 4 * Int(bytes[view.bodyRange.lowerBound + 12])
    }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        let count = Int(bytes[base + 12])
        let exponent = UInt64(bytes[base + 13] >> 2)
        let mantissa = UInt64(bytes.readBE24(at: base + 13) & 0x3_FFFF)
        // A mantissa of 18 bits shifted by up to 63 would overflow; saturate instead.
        let bitrate = exponent > 46 ? UInt64.max : mantissa << exponent
        self.init(senderSSRC: bytes.readBE32(at: base), bitrate: bitrate,
                  ssrcs: (0..<count).map { bytes.readBE32(at: base + 16 + 4 * $0) })
    }
}

/// Transport-wide congestion control feedback, PT 205 FMT 15
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1). Only the fixed fields are
/// decoded: the relay passes it through with SSRCs mapped.
public struct RTCPTransportWideFeedback: Sendable, Hashable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public var baseSequenceNumber: UInt16
    public var packetStatusCount: UInt16
    /// 24-bit signed reference time in multiples of 64 ms.
    public var referenceTime: Int32
    public var feedbackPacketCount: UInt8

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, baseSequenceNumber: UInt16, packetStatusCount: UInt16,
                referenceTime: Int32, feedbackPacketCount: UInt8) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.baseSequenceNumber = baseSequenceNumber
        self.packetStatusCount = packetStatusCount
        self.referenceTime = referenceTime
        self.feedbackPacketCount = feedbackPacketCount
    }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        let reference = bytes.readBE24(at: base + 12)
        self.init(senderSSRC: bytes.readBE32(at: base), mediaSSRC: bytes.readBE32(at: base + 4),
                  baseSequenceNumber: bytes.readBE16(at: base + 8), packetStatusCount: bytes.readBE16(at: base + 10),
                  referenceTime: Int32(bitPattern: reference & 0x80_0000 != 0 ? reference | 0xFF00_0000 : reference),
                  feedbackPacketCount: bytes[base + 15])
    }
}
