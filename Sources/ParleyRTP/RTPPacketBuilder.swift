/// Serialises RTP packets (RFC 3550 §5.1) with optional RFC 8285 header extensions — for
/// packets the relay originates (probes, tests) rather than the forwarding path.
public struct RTPPacketBuilder: Sendable {
    public var marker = false
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32] = []
    /// Extension elements as (id, value); written in ``extensionForm``.
    public var extensions: [(id: UInt8, value: [UInt8])] = []
    /// One-byte unless an id above 14 or a value outside 1...16 bytes needs two-byte.
    public var extensionForm: RTPHeaderExtensionForm?
    public var payload: [UInt8] = []
    /// Padding bytes to add (0 for none, else 1...255; the last byte holds the count).
    public var paddingLength: UInt8 = 0

    public init(payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32) {
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// The packet bytes.
    public func build() -> [UInt8] {
        var out: [UInt8] = []
        let csrcCount = min(csrcs.count, 15)
        out.append(0x80 | (paddingLength > 0 ? 0x20 : 0) | (extensions.isEmpty ? 0 : 0x10) | UInt8(csrcCount))
        out.append((marker ? 0x80 : 0) | (payloadType & 0x7F))
        out.appendBE16(sequenceNumber)
        out.appendBE32(timestamp)
        out.appendBE32(ssrc)
        for csrc in csrcs.prefix(csrcCount) { out.appendBE32(csrc) }
        if !extensions.isEmpty {
            let needsTwoByte = extensions.contains { $0.id > 14 || $0.value.isEmpty || $0.value.count > 16 }
            let form = extensionForm ?? (needsTwoByte ? .twoByte : .oneByte)
            var body: [UInt8] = []
            for element in extensions {
                switch form {
                case .oneByte:
                    let length = min(max(element.value.count, 1), 16)
                    body.append((element.id & 0x0F) << 4 | UInt8(length - 1))
                    body.append(contentsOf: element.value.prefix(length))
                    body.append(contentsOf: Array(repeating: 0, count: length - min(element.value.count, length)))
                case .twoByte:
                    let length = min(element.value.count, 255)
                    body.append(element.id)
                    body.append(UInt8(length))
                    body.append(contentsOf: element.value.prefix(length))
                }
            }
            while body.count % 4 != 0 { body.append(0) }
            out.appendBE16(form.profile)
            out.appendBE16(UInt16(body.count / 4))
            out.append(contentsOf: body)
        }
        out.append(contentsOf: payload)
        if paddingLength > 0 {
            out.append(contentsOf: Array(repeating: 0, count: Int(paddingLength) - 1))
            out.append(paddingLength)
        }
        return out
    }
}
