/// Readers and in-place writers for the header extension values WebRTC relays care about.
extension RTPHeader {
    /// abs-send-time (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time): 24 bits,
    /// seconds in 6.18 fixed point.
    public func absSendTime(id: UInt8, in bytes: UnsafeRawBufferPointer) -> UInt32? {
        guard let range = extensionValueRange(id: id, in: bytes), range.count == 3 else { return nil }
        return bytes.readBE24(at: range.lowerBound)
    }

    /// Transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01 §2):
    /// 16 bits.
    public func transportSequenceNumber(id: UInt8, in bytes: UnsafeRawBufferPointer) -> UInt16? {
        guard let range = extensionValueRange(id: id, in: bytes), range.count >= 2 else { return nil }
        return bytes.readBE16(at: range.lowerBound)
    }

    /// Client-to-mixer audio level (RFC 6464 §3): voice activity flag and level in −dBov (0–127).
    public func audioLevel(id: UInt8, in bytes: UnsafeRawBufferPointer) -> (voiceActivity: Bool, level: UInt8)? {
        guard let range = extensionValueRange(id: id, in: bytes), range.count >= 1 else { return nil }
        let value = bytes[range.lowerBound]
        return (value & 0x80 != 0, value & 0x7F)
    }

    /// Overwrites the value of extension element `id` in place; false unless the element is
    /// present with exactly `value.count` bytes. Use it to restamp abs-send-time or the
    /// transport-wide sequence number without moving anything.
    public func overwriteExtension(id: UInt8, with value: some Collection<UInt8>,
                                   in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let range = extensionValueRange(id: id, in: UnsafeRawBufferPointer(buffer)),
              range.count == value.count else { return false }
        var offset = range.lowerBound
        for byte in value {
            buffer[offset] = byte
            offset += 1
        }
        return true
    }

    /// Writes a 16-bit transport-wide sequence number into element `id` in place.
    public func setTransportSequenceNumber(_ sequence: UInt16, id: UInt8,
                                           in buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let range = extensionValueRange(id: id, in: UnsafeRawBufferPointer(buffer)),
              range.count == 2 else { return false }
        buffer.writeBE16(sequence, at: range.lowerBound)
        return true
    }
}
