/// A source description packet, PT 202 (RFC 3550 §6.5): per source, a list of items.
public struct RTCPSourceDescription: Sendable, Hashable {
    /// One SDES item: type (1 = CNAME, 2 = NAME, …, 8 = PRIV; RFC 3550 §6.5) and text.
    public struct Item: Sendable, Hashable {
        public var type: UInt8
        public var value: String
        public init(type: UInt8, value: String) {
            self.type = type
            self.value = value
        }
    }

    /// The items about one SSRC or CSRC.
    public struct Chunk: Sendable, Hashable {
        public var ssrc: UInt32
        public var items: [Item]
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }

        /// The CNAME item (type 1), if any (RFC 3550 §6.5.1).
        public var cname: String? { items.first { $0.type == 1 }?.value }
    }

    public var chunks: [Chunk]

    public init(chunks: [Chunk]) {
        self.chunks = chunks
    }

    /// Walks the chunks of an SDES body: calls `visit` with each chunk's SSRC offset and
    /// item range, and returns false when a chunk or item runs past the body.
    static func walk(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer,
                     _ visit: (_ ssrcOffset: Int, _ items: Range<Int>) -> Void) -> Bool {
        var offset = view.bodyRange.lowerBound
        let end = view.bodyRange.upperBound
        for _ in 0..<Int(view.count) {
            guard end - offset >= 4 else { return false }
            let ssrcOffset = offset
            offset += 4
            let itemsStart = offset
            // Items end with a zero type byte, then pad to a 32-bit boundary (RFC 3550 §6.5).
            while true {
                guard offset < end else { return false }
                if bytes[offset] == 0 { break }
                guard end - offset >= 2 else { return false }
                let length = Int(bytes[offset + 1])
                guard length <= end - offset - 2 else { return false }
                offset += 2 + length
            }
            let itemsEnd = offset
            offset = (offset + 4) & ~3
            guard offset <= end else { return false }
            visit(ssrcOffset, itemsStart..<itemsEnd)
        }
        return true
    }

    init?(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        var chunks: [Chunk] = []
        let ok = RTCPSourceDescription.walk(view, in: bytes) { ssrcOffset, items in
            var list: [Item] = []
            var offset = items.lowerBound
            while offset < items.upperBound {
                let length = Int(bytes[offset + 1])
                let text = UnsafeRawBufferPointer(rebasing: bytes[(offset + 2)..<(offset + 2 + length)])
                list.append(Item(type: bytes[offset], value: String(decoding: text, as: UTF8.self)))
                offset += 2 + length
            }
            chunks.append(Chunk(ssrc: bytes.readBE32(at: ssrcOffset), items: list))
        }
        guard ok else { return nil }
        self.init(chunks: chunks)
    }
}
