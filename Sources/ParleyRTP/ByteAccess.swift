// Big-endian reads and writes for the RTP/RTCP codecs. Callers check bounds first.

extension UnsafeRawBufferPointer {
    @inline(__always)
    func readBE16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func readBE24(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inline(__always)
    func readBE32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16
            | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func writeBE16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    func writeBE32(_ value: UInt32, at offset: Int) {
        writeBE16(UInt16(truncatingIfNeeded: value >> 16), at: offset)
        writeBE16(UInt16(truncatingIfNeeded: value), at: offset + 2)
    }

    @inline(__always)
    func readBE32(at offset: Int) -> UInt32 {
        UnsafeRawBufferPointer(self).readBE32(at: offset)
    }
}

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendBE16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func appendBE32(_ value: UInt32) {
        appendBE16(UInt16(truncatingIfNeeded: value >> 16))
        appendBE16(UInt16(truncatingIfNeeded: value))
    }
}
