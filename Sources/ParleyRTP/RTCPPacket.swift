/// One decoded RTCP packet (RFC 3550 §6, RFC 4585 §6, RFC 5104 §4.3).
///
/// Decoding builds arrays (report blocks, NACK items), so it is for the control path and
/// tests; the forwarding path uses ``RTCPCompoundIterator`` and ``RTCPRewriter`` instead.
public enum RTCPPacket: Sendable, Hashable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case bye(RTCPBye)
    case genericNACK(RTCPGenericNACK)
    case pictureLossIndication(RTCPPictureLossIndication)
    case fullIntraRequest(RTCPFullIntraRequest)
    case remb(RTCPREMB)
    case transportWideFeedback(RTCPTransportWideFeedback)
    /// APP, XR, and feedback formats not listed above: recognised as RTCP, passed through.
    case other(packetType: UInt8, format: UInt8)

    /// Decodes one packet found by ``RTCPCompoundIterator``.
    public static func parse(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) -> Result<RTCPPacket, RTCPParseError> {
        if let error = checkShape(view, in: bytes) { return .failure(error) }
        switch (view.packetType, view.format) {
        case (RTCPPacketType.senderReport, _):
            return .success(.senderReport(RTCPSenderReport(view, in: bytes)))
        case (RTCPPacketType.receiverReport, _):
            return .success(.receiverReport(RTCPReceiverReport(view, in: bytes)))
        case (RTCPPacketType.sourceDescription, _):
            guard let sdes = RTCPSourceDescription(view, in: bytes) else { return .failure(.countOverflow) }
            return .success(.sourceDescription(sdes))
        case (RTCPPacketType.bye, _):
            guard let bye = RTCPBye(view, in: bytes) else { return .failure(.countOverflow) }
            return .success(.bye(bye))
        case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.genericNACK):
            return .success(.genericNACK(RTCPGenericNACK(view, in: bytes)))
        case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.transportCC):
            return .success(.transportWideFeedback(RTCPTransportWideFeedback(view, in: bytes)))
        case (RTCPPacketType.payloadFeedback, RTCPFeedbackFormat.pictureLossIndication):
            let base = view.bodyRange.lowerBound
            return .success(.pictureLossIndication(RTCPPictureLossIndication(
                senderSSRC: bytes.readBE32(at: base), mediaSSRC: bytes.readBE32(at: base + 4))))
        case (RTCPPacketType.payloadFeedback, RTCPFeedbackFormat.fullIntraRequest):
            return .success(.fullIntraRequest(RTCPFullIntraRequest(view, in: bytes)))
        case (RTCPPacketType.payloadFeedback, RTCPFeedbackFormat.applicationLayer) where RTCPREMB.isREMB(view, in: bytes):
            return .success(.remb(RTCPREMB(view, in: bytes)))
        default:
            return .success(.other(packetType: view.packetType, format: view.format))
        }
    }

    /// Decodes every packet of a compound packet; fails on the first malformed one.
    public static func parseCompound(_ bytes: UnsafeRawBufferPointer) -> Result<[RTCPPacket], RTCPParseError> {
        guard !bytes.isEmpty else { return .failure(.tooShort) }
        var packets: [RTCPPacket] = []
        var iterator = RTCPCompoundIterator(bytes)
        while let view = iterator.next() {
            switch parse(view, in: bytes) {
            case .success(let packet): packets.append(packet)
            case .failure(let error): return .failure(error)
            }
        }
        if let error = iterator.error { return .failure(error) }
        return .success(packets)
    }

    /// Decodes a compound packet held in an array.
    public static func parseCompound(_ bytes: [UInt8]) -> Result<[RTCPPacket], RTCPParseError> {
        bytes.withUnsafeBytes { parseCompound($0) }
    }

    /// Checks that a packet's body is long enough for its type and counts, so that decoding
    /// and rewriting may read at fixed offsets without further checks.
    static func checkShape(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) -> RTCPParseError? {
        let body = view.bodyRange.count
        switch view.packetType {
        case RTCPPacketType.senderReport:
            guard body >= 24 else { return .tooShort }
            return body >= RTCPSenderReport.minimumBody(count: view.count) ? nil : .countOverflow
        case RTCPPacketType.receiverReport:
            guard body >= 4 else { return .tooShort }
            return body >= RTCPReceiverReport.minimumBody(count: view.count) ? nil : .countOverflow
        case RTCPPacketType.sourceDescription:
            return RTCPSourceDescription.walk(view, in: bytes) { _, _ in } ? nil : .countOverflow
        case RTCPPacketType.bye:
            return RTCPBye.hasValidShape(view, in: bytes) ? nil : .countOverflow
        case RTCPPacketType.transportFeedback, RTCPPacketType.payloadFeedback:
            guard body >= 8 else { return .tooShort }
            switch (view.packetType, view.format) {
            case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.genericNACK):
                return (body - 8) % 4 == 0 ? nil : .tooShort
            case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.transportCC):
                return body >= 16 ? nil : .tooShort
            case (RTCPPacketType.payloadFeedback, RTCPFeedbackFormat.fullIntraRequest):
                return (body - 8) % 8 == 0 ? nil : .tooShort
            case (RTCPPacketType.payloadFeedback, RTCPFeedbackFormat.applicationLayer):
                guard RTCPREMB.isREMB(view, in: bytes) else { return nil }
                return body >= RTCPREMB.requiredBody(view, in: bytes) ? nil : .countOverflow
            default:
                return nil
            }
        case RTCPPacketType.extendedReport:
            return RTCPExtendedReport.walk(view, in: bytes) { _, _ in } ? nil : .tooShort
        default:
            return nil
        }
    }
}

/// Extended reports, PT 207 (RFC 3611 §2): a sender SSRC and a list of report blocks.
/// Only walked (for SSRC rewriting), not decoded.
enum RTCPExtendedReport {
    /// Calls `visit` with each block's type and range; false when a block runs past the body.
    static func walk(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer,
                     _ visit: (_ blockType: UInt8, _ block: Range<Int>) -> Void) -> Bool {
        guard view.bodyRange.count >= 4 else { return false }
        var offset = view.bodyRange.lowerBound + 4
        let end = view.bodyRange.upperBound
        while offset < end {
            guard end - offset >= 4 else { return false }
            let length = 4 + 4 * Int(bytes.readBE16(at: offset + 2))
            guard length <= end - offset else { return false }
            visit(bytes[offset], offset..<(offset + length))
            offset += length
        }
        return true
    }
}
