/// Which side of the relay an SSRC in an RTCP packet names.
public enum RTCPSSRCRole: Sendable, Hashable {
    /// The packet's originator: SR/RR/XR/feedback sender SSRC, SDES chunk, BYE list.
    case sender
    /// A source the packet is about: report blocks, feedback media SSRC, FIR entries, REMB
    /// list, XR per-source blocks.
    case media
}

/// A small SSRC → SSRC table for RTCP rewriting; lookups are a linear scan without allocation,
/// which beats hashing for the handful of streams a leg has.
public struct SSRCMap: Sendable, Hashable {
    private var pairs: [(UInt32, UInt32)]

    public init(_ pairs: [(from: UInt32, to: UInt32)] = []) {
        self.pairs = pairs.map { ($0.from, $0.to) }
    }

    /// The mapped SSRC, or nil when `ssrc` is not in the table.
    public subscript(ssrc: UInt32) -> UInt32? {
        get {
            for (from, to) in pairs where from == ssrc { return to }
            return nil
        }
        set {
            pairs.removeAll { $0.0 == ssrc }
            if let newValue { pairs.append((ssrc, newValue)) }
        }
    }

    public static func == (lhs: SSRCMap, rhs: SSRCMap) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    public func hash(into hasher: inout Hasher) {
        for (from, to) in pairs {
            hasher.combine(from)
            hasher.combine(to)
        }
    }
}

/// Rewrites the SSRCs of a compound RTCP packet in place (RFC 3550 §6, RFC 4585 §6.1,
/// RFC 5104 §4.3.1, RFC 3611), so that feedback crossing the relay names the SSRCs each
/// side knows. Validates the whole compound first and writes nothing when it is malformed.
public enum RTCPRewriter {
    /// Calls `map` for every SSRC field with its role; a non-nil result replaces the field.
    /// Returns false, leaving the buffer untouched, when the compound is malformed.
    @discardableResult
    public static func rewriteSSRCs(in buffer: UnsafeMutableRawBufferPointer,
                                    _ map: (UInt32, RTCPSSRCRole) -> UInt32?) -> Bool {
        let bytes = UnsafeRawBufferPointer(buffer)
        guard RTCPCompound.validate(bytes) == nil else { return false }
        func rewrite(_ offset: Int, _ role: RTCPSSRCRole) {
            if let mapped = map(buffer.readBE32(at: offset), role) { buffer.writeBE32(mapped, at: offset) }
        }
        var iterator = RTCPCompoundIterator(bytes)
        while let view = iterator.next() {
            let base = view.bodyRange.lowerBound
            switch view.packetType {
            case RTCPPacketType.senderReport, RTCPPacketType.receiverReport:
                rewrite(base, .sender)
                let blocks = base + (view.packetType == RTCPPacketType.senderReport ? 24 : 4)
                for index in 0..<Int(view.count) { rewrite(blocks + RTCPReportBlock.size * index, .media) }
            case RTCPPacketType.sourceDescription:
                _ = RTCPSourceDescription.walk(view, in: bytes) { ssrcOffset, _ in rewrite(ssrcOffset, .sender) }
            case RTCPPacketType.bye:
                for index in 0..<Int(view.count) { rewrite(base + 4 * index, .sender) }
            case RTCPPacketType.transportFeedback, RTCPPacketType.payloadFeedback:
                rewrite(base, .sender)
                let isFIR = view.packetType == RTCPPacketType.payloadFeedback && view.format == RTCPFeedbackFormat.fullIntraRequest
                let isREMB = RTCPREMB.isREMB(view, in: bytes)
                // FIR and REMB leave the media source field 0 (RFC 5104 §4.3.1.1); leave it be.
                if !isFIR && !isREMB { rewrite(base + 4, .media) }
                if isFIR {
                    for index in 0..<((view.bodyRange.count - 8) / 8) { rewrite(base + 8 + 8 * index, .media) }
                }
                if isREMB {
                    for index in 0..<Int(bytes[base + 12]) { rewrite(base + 16 + 4 * index, .media) }
                }
            case RTCPPacketType.extendedReport:
                rewrite(base, .sender)
                _ = RTCPExtendedReport.walk(view, in: bytes) { type, block in
                    switch type {
                    case 1, 2, 3, 6, 7:  // Blocks whose first word after the header is a source SSRC.
                        if block.count >= 8 { rewrite(block.lowerBound + 4, .media) }
                    case 5:  // DLRR: 12-byte sub-blocks, each starting with an SSRC (RFC 3611 §4.5).
                        var offset = block.lowerBound + 4
                        while block.upperBound - offset >= 12 {
                            rewrite(offset, .media)
                            offset += 12
                        }
                    default:
                        break
                    }
                }
            default:
                break  // APP and unknown types carry no SSRC we know how to find.
            }
        }
        return true
    }

    /// Rewrites with two tables: one for sender SSRCs, one for media SSRCs.
    @discardableResult
    public static func rewriteSSRCs(in buffer: UnsafeMutableRawBufferPointer, sender: SSRCMap, media: SSRCMap) -> Bool {
        rewriteSSRCs(in: buffer) { ssrc, role in role == .sender ? sender[ssrc] : media[ssrc] }
    }

    /// Rewrites a compound held in an array, in place.
    @discardableResult
    public static func rewriteSSRCs(in packet: inout [UInt8], sender: SSRCMap, media: SSRCMap) -> Bool {
        packet.withUnsafeMutableBytes { rewriteSSRCs(in: $0, sender: sender, media: media) }
    }
}
