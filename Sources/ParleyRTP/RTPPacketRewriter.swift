/// In-place rewrites of the fixed RTP header (RFC 3550 §5.1) for forwarding: the relay gives
/// each receiving leg the SSRC, payload type, sequence numbers and timestamps it negotiated.
///
/// Each function checks that the buffer holds at least a fixed header of version 2 and returns
/// false otherwise, writing nothing. None allocates.
public enum RTPPacketRewriter {
    @inline(__always)
    static func isRTP(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        buffer.count >= RTPHeader.fixedSize && buffer[0] >> 6 == 2
    }

    /// Sets the SSRC (bytes 8–11).
    @discardableResult
    public static func setSSRC(_ ssrc: UInt32, in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard isRTP(buffer) else { return false }
        buffer.writeBE32(ssrc, at: 8)
        return true
    }

    /// Sets the 7-bit payload type, keeping the marker bit.
    @discardableResult
    public static func setPayloadType(_ payloadType: UInt8, in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard isRTP(buffer) else { return false }
        buffer[1] = (buffer[1] & 0x80) | (payloadType & 0x7F)
        return true
    }

    /// Sets the marker bit.
    @discardableResult
    public static func setMarker(_ marker: Bool, in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard isRTP(buffer) else { return false }
        buffer[1] = marker ? buffer[1] | 0x80 : buffer[1] & 0x7F
        return true
    }

    /// Sets the sequence number (bytes 2–3).
    @discardableResult
    public static func setSequenceNumber(_ sequence: UInt16, in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard isRTP(buffer) else { return false }
        buffer.writeBE16(sequence, at: 2)
        return true
    }

    /// Sets the timestamp (bytes 4–7).
    @discardableResult
    public static func setTimestamp(_ timestamp: UInt32, in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard isRTP(buffer) else { return false }
        buffer.writeBE32(timestamp, at: 4)
        return true
    }

    /// Sets any of SSRC, payload type, sequence number and timestamp at once; nil leaves a
    /// field as it is.
    @discardableResult
    public static func rewrite(_ buffer: UnsafeMutableRawBufferPointer, ssrc: UInt32? = nil, payloadType: UInt8? = nil,
                               sequenceNumber: UInt16? = nil, timestamp: UInt32? = nil) -> Bool {
        guard isRTP(buffer) else { return false }
        if let ssrc { buffer.writeBE32(ssrc, at: 8) }
        if let payloadType { buffer[1] = (buffer[1] & 0x80) | (payloadType & 0x7F) }
        if let sequenceNumber { buffer.writeBE16(sequenceNumber, at: 2) }
        if let timestamp { buffer.writeBE32(timestamp, at: 4) }
        return true
    }

    /// ``rewrite(_:ssrc:payloadType:sequenceNumber:timestamp:)`` on an array holding the packet.
    @discardableResult
    public static func rewrite(_ packet: inout [UInt8], ssrc: UInt32? = nil, payloadType: UInt8? = nil,
                               sequenceNumber: UInt16? = nil, timestamp: UInt32? = nil) -> Bool {
        packet.withUnsafeMutableBytes {
            rewrite($0, ssrc: ssrc, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp)
        }
    }
}
