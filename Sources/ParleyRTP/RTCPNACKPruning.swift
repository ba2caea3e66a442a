/// Takes out of the generic NACKs (RFC 4585 §6.2.1) of a compound the packets someone already
/// answered: the relay resends from its own history what a receiver lost between relay and
/// receiver, and the sender must then not be asked for them too (its copy would reach the
/// receiver as a replay). What is left of a NACK is written back in place; a NACK with nothing
/// left leaves the compound, and the packets after it move up. A pure rewrite of the bytes.
public enum RTCPNACKPruning {
    /// Prunes every generic NACK about `mediaSSRC` in the first `length` bytes of `buffer`;
    /// returns the compound's new length (0: nothing is left to forward). Packets with padding,
    /// and anything that does not parse, stay as they are.
    public static func prune(_ buffer: UnsafeMutableRawBufferPointer, length: Int, mediaSSRC: UInt32,
                             answered: (UInt16) -> Bool) -> Int {
        var end = min(length, buffer.count)
        var offset = 0
        while offset + 4 <= end {
            let size = ((Int(buffer[offset + 2]) << 8 | Int(buffer[offset + 3])) + 1) * 4
            guard offset + size <= end else { break }
            let isNACK = buffer[offset + 1] == RTCPPacketType.transportFeedback
                && buffer[offset] & 0x1F == RTCPFeedbackFormat.genericNACK && buffer[offset] & 0x20 == 0 && size >= 16
            guard isNACK, word(buffer, offset + 8) == mediaSSRC else {
                offset += size
                continue
            }
            var named: [UInt16] = []
            var entry = offset + 12
            while entry + 4 <= offset + size {
                let id = UInt16(buffer[entry]) << 8 | UInt16(buffer[entry + 1])
                let mask = UInt16(buffer[entry + 2]) << 8 | UInt16(buffer[entry + 3])
                named.append(id)
                for bit in 0..<16 where mask & (1 << bit) != 0 { named.append(id &+ UInt16(bit + 1)) }
                entry += 4
            }
            let left = named.filter { !answered($0) }
            guard left.count < named.count else {
                offset += size
                continue
            }
            // What is left of one entry fits in one again, so the rewrite never grows.
            let items = RTCPGenericNACK(senderSSRC: 0, mediaSSRC: mediaSSRC, lostSequenceNumbers: left).items
            let newSize = left.isEmpty ? 0 : 12 + 4 * items.count
            if newSize > 0 {
                var at = offset + 12
                for item in items {
                    buffer[at] = UInt8(item.packetID >> 8)
                    buffer[at + 1] = UInt8(truncatingIfNeeded: item.packetID)
                    buffer[at + 2] = UInt8(item.bitmask >> 8)
                    buffer[at + 3] = UInt8(truncatingIfNeeded: item.bitmask)
                    at += 4
                }
                let words = newSize / 4 - 1
                buffer[offset + 2] = UInt8(words >> 8)
                buffer[offset + 3] = UInt8(truncatingIfNeeded: words)
            }
            let tail = end - (offset + size)
            if tail > 0, let base = buffer.baseAddress {
                (base + offset + newSize).copyMemory(from: base + offset + size, byteCount: tail)
            }
            end -= size - newSize
            offset += newSize
        }
        return end
    }

    private static func word(_ buffer: UnsafeMutableRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(buffer[at]) << 24 | UInt32(buffer[at + 1]) << 16 | UInt32(buffer[at + 2]) << 8 | UInt32(buffer[at + 3])
    }
}
