/// Serialises the RTCP packets the relay originates (RFC 3550 §6.4, RFC 4585 §6, RFC 5104 §4.3).
/// Concatenate results to make a compound packet (RFC 3550 §6.1).
public enum RTCPBuilder {
    /// Writes the common header for a packet whose body is `bodyLength` bytes (a multiple of 4).
    static func header(count: UInt8, packetType: UInt8, bodyLength: Int, into out: inout [UInt8]) {
        out.append(0x80 | (count & 0x1F))
        out.append(packetType)
        out.appendBE16(UInt16(bodyLength / 4))  // length in words minus one, header included
    }

    /// Picture Loss Indication (RFC 4585 §6.3.1): ask `mediaSSRC`'s sender for a key frame.
    public static func pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        header(count: RTCPFeedbackFormat.pictureLossIndication, packetType: RTCPPacketType.payloadFeedback,
               bodyLength: 8, into: &out)
        out.appendBE32(senderSSRC)
        out.appendBE32(mediaSSRC)
        return out
    }

    /// Full Intra Request (RFC 5104 §4.3.1), media source field 0, one FCI entry per target.
    public static func fullIntraRequest(senderSSRC: UInt32, entries: [RTCPFullIntraRequest.Entry]) -> [UInt8] {
        var out: [UInt8] = []
        header(count: RTCPFeedbackFormat.fullIntraRequest, packetType: RTCPPacketType.payloadFeedback,
               bodyLength: 8 + 8 * entries.count, into: &out)
        out.appendBE32(senderSSRC)
        out.appendBE32(0)
        for entry in entries {
            out.appendBE32(entry.ssrc)
            out.append(entry.sequenceNumber)
            out.append(contentsOf: [0, 0, 0])
        }
        return out
    }

    /// Generic NACK (RFC 4585 §6.2.1) for the given lost sequence numbers, in order.
    public static func genericNACK(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) -> [UInt8] {
        genericNACK(RTCPGenericNACK(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, lostSequenceNumbers: lostSequenceNumbers))
    }

    /// Generic NACK (RFC 4585 §6.2.1) from ready-made items.
    public static func genericNACK(_ nack: RTCPGenericNACK) -> [UInt8] {
        var out: [UInt8] = []
        header(count: RTCPFeedbackFormat.genericNACK, packetType: RTCPPacketType.transportFeedback,
               bodyLength: 8 + 4 * nack.items.count, into: &out)
        out.appendBE32(nack.senderSSRC)
        out.appendBE32(nack.mediaSSRC)
        for item in nack.items {
            out.appendBE16(item.packetID)
            out.appendBE16(item.bitmask)
        }
        return out
    }

    /// Receiver report (RFC 3550 §6.4.2) with up to 31 report blocks.
    public static func receiverReport(_ report: RTCPReceiverReport) -> [UInt8] {
        let blocks = report.reports.prefix(31)
        var out: [UInt8] = []
        header(count: UInt8(blocks.count), packetType: RTCPPacketType.receiverReport,
               bodyLength: 4 + RTCPReportBlock.size * blocks.count, into: &out)
        out.appendBE32(report.ssrc)
        for block in blocks { block.append(to: &out) }
        return out
    }

    /// Sender report (RFC 3550 §6.4.1) with up to 31 report blocks.
    public static func senderReport(_ report: RTCPSenderReport) -> [UInt8] {
        let blocks = report.reports.prefix(31)
        var out: [UInt8] = []
        header(count: UInt8(blocks.count), packetType: RTCPPacketType.senderReport,
               bodyLength: 24 + RTCPReportBlock.size * blocks.count, into: &out)
        out.appendBE32(report.ssrc)
        out.appendBE32(UInt32(truncatingIfNeeded: report.ntpTimestamp >> 32))
        out.appendBE32(UInt32(truncatingIfNeeded: report.ntpTimestamp))
        out.appendBE32(report.rtpTimestamp)
        out.appendBE32(report.packetCount)
        out.appendBE32(report.octetCount)
        for block in blocks { block.append(to: &out) }
        return out
    }

    /// Source description (RFC 3550 §6.5) with one CNAME chunk.
    public static func sourceDescription(ssrc: UInt32, cname: String) -> [UInt8] {
        let text = Array(cname.utf8.prefix(255))
        var chunk: [UInt8] = []
        chunk.appendBE32(ssrc)
        chunk.append(1)
        chunk.append(UInt8(text.count))
        chunk.append(contentsOf: text)
        chunk.append(0)  // end of items
        while chunk.count % 4 != 0 { chunk.append(0) }
        var out: [UInt8] = []
        header(count: 1, packetType: RTCPPacketType.sourceDescription, bodyLength: chunk.count, into: &out)
        out.append(contentsOf: chunk)
        return out
    }

    /// Goodbye (RFC 3550 §6.6) for up to 31 SSRCs.
    public static func bye(ssrcs: [UInt32]) -> [UInt8] {
        let list = ssrcs.prefix(31)
        var out: [UInt8] = []
        header(count: UInt8(list.count), packetType: RTCPPacketType.bye, bodyLength: 4 * list.count, into: &out)
        for ssrc in list { out.appendBE32(ssrc) }
        return out
    }
}
