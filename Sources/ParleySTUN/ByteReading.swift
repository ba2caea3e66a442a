// Big-endian reads and writes shared by the STUN codec. Callers check bounds first.

extension UnsafeRawBufferPointer {
    @inline(__always)
    func readBE16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func readBE32(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 24 | UInt32(self[offset + 1]) << 16
            | UInt32(self[offset + 2]) << 8 | UInt32(self[offset + 3])
    }

    @inline(__always)
    func readBE64(at offset: Int) -> UInt64 {
        UInt64(readBE32(at: offset)) << 32 | UInt64(readBE32(at: offset + 4))
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

    @inline(__always)
    mutating func appendBE64(_ value: UInt64) {
        appendBE32(UInt32(truncatingIfNeeded: value >> 32))
        appendBE32(UInt32(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func storeBE16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }
}
