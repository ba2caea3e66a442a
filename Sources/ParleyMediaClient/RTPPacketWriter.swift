/// Writes RTP headers (RFC 3550 §5.1) into a reused buffer, so the send path allocates nothing
/// per packet. The header extension is one RFC 8285 one-byte-header block: the mid
/// (RFC 8843 §15.2), then, when negotiated, a slot for abs-send-time that the sender stamps just
/// before protecting the packet (``absSendTimeOffset``).
struct RTPPacketWriter {
    let ssrc: UInt32
    let payloadType: UInt8
    private let extensionBytes: [UInt8]
    /// Where the three abs-send-time octets sit in every packet written, if they are sent.
    let absSendTimeOffset: Int?
    private(set) var sequenceNumber: UInt16

    /// Header size: 12 fixed octets plus the extension block.
    var headerSize: Int { 12 + extensionBytes.count }

    /// - Parameter absSendTimeExtensionID: 1…14, or 0 to send no abs-send-time.
    init(ssrc: UInt32, payloadType: UInt8, midExtensionID: UInt8, mid: String, absSendTimeExtensionID: UInt8 = 0) {
        self.ssrc = ssrc
        self.payloadType = payloadType
        sequenceNumber = UInt16.random(in: 0...UInt16.max)
        // RFC 8285 §4.2: 0xBEDE, length in words, then ID/L (L = length − 1) and the value of
        // each element, padded with zeros to a word.
        let value = Array(mid.utf8.prefix(16))
        var elements: [UInt8] = value.isEmpty ? [] : [midExtensionID << 4 | UInt8(value.count - 1)] + value
        var absOffset: Int?
        if (1...14).contains(absSendTimeExtensionID) {
            elements.append(absSendTimeExtensionID << 4 | UInt8(AbsSendTime.size - 1))
            absOffset = 12 + 4 + elements.count
            elements.append(contentsOf: repeatElement(0, count: AbsSendTime.size))
        }
        while elements.count % 4 != 0 { elements.append(0) }
        let words = elements.count / 4
        extensionBytes = elements.isEmpty ? [] : [0xBE, 0xDE, UInt8(words >> 8), UInt8(words & 0xFF)] + elements
        absSendTimeOffset = absOffset
    }

    /// Replaces `buffer`'s contents with a header for the next sequence number, followed by `payload`.
    mutating func write(into buffer: inout [UInt8], timestamp: UInt32, marker: Bool,
                        payload: UnsafeRawBufferPointer) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(extensionBytes.isEmpty ? 0x80 : 0x90)
        buffer.append((marker ? 0x80 : 0) | payloadType & 0x7F)
        append16(sequenceNumber, to: &buffer)
        append32(timestamp, to: &buffer)
        append32(ssrc, to: &buffer)
        buffer.append(contentsOf: extensionBytes)
        buffer.append(contentsOf: payload)
        sequenceNumber &+= 1
    }

    private func append16(_ value: UInt16, to buffer: inout [UInt8]) {
        buffer.append(UInt8(value >> 8))
        buffer.append(UInt8(value & 0xFF))
    }

    private func append32(_ value: UInt32, to buffer: inout [UInt8]) {
        append16(UInt16(value >> 16), to: &buffer)
        append16(UInt16(value & 0xFFFF), to: &buffer)
    }
}
