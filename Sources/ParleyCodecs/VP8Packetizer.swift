/// One RTP payload of a VP8 frame: descriptor + data, and the RTP marker bit (RFC 7741 §4.1:
/// set on the last packet of a frame).
public struct VP8RTPPayload: Equatable, Sendable {
    public var bytes: [UInt8]
    public var marker: Bool

    public init(bytes: [UInt8], marker: Bool) {
        self.bytes = bytes
        self.marker = marker
    }
}

/// Splits VP8 frames into RTP payloads (RFC 7741 §4.4), without partition awareness: the first
/// payload of a frame has S=1, PID=0; the rest S=0, PID=0 (§4.5.1 lets receivers cope with that).
///
/// Each frame gets the next 15-bit PictureID (M=1) when PictureIDs are on. Payload sizes are spread
/// evenly so no packet is a runt.
public struct VP8Packetizer: Sendable {
    /// Largest payload (descriptor + data) produced — e.g. 1200 minus the RTP header and extensions.
    public let maxPayloadSize: Int
    /// The PictureID the next frame will carry, or nil when PictureIDs are off.
    public private(set) var nextPictureID: UInt16?

    /// - Parameters:
    ///   - maxPayloadSize: at least 7 (the largest descriptor, 6 octets, plus one octet of data).
    ///   - pictureID: the first PictureID (masked to 15 bits), or nil to send none.
    public init(maxPayloadSize: Int, pictureID: UInt16? = 0) throws(VP8PayloadError) {
        guard maxPayloadSize >= 7 else { throw .truncated }
        self.maxPayloadSize = maxPayloadSize
        self.nextPictureID = pictureID.map { $0 & 0x7fff }
    }

    /// Packetizes one frame into `payloads`, replacing its contents and reusing its and its
    /// elements' storage. `template` supplies N, TL0PICIDX, TID/Y and KEYIDX; S, PID and the
    /// PictureID are filled in here. Returns the number of payloads (0 for an empty frame).
    @discardableResult
    public mutating func packetize(
        _ frame: [UInt8], template: VP8PayloadDescriptor = VP8PayloadDescriptor(),
        into payloads: inout [VP8RTPPayload]
    ) -> Int {
        guard !frame.isEmpty else { payloads.removeAll(keepingCapacity: true); return 0 }
        var descriptor = template
        descriptor.partitionIndex = 0
        if let id = nextPictureID {
            descriptor.pictureID = .long(id)
            nextPictureID = (id &+ 1) & 0x7fff
        }
        let capacity = maxPayloadSize - descriptor.encodedSize
        let count = (frame.count + capacity - 1) / capacity
        let base = frame.count / count, extra = frame.count % count
        var offset = 0
        for index in 0..<count {
            descriptor.startOfPartition = index == 0
            let size = base + (index < extra ? 1 : 0)
            if index == payloads.count { payloads.append(VP8RTPPayload(bytes: [], marker: false)) }
            payloads[index].bytes.removeAll(keepingCapacity: true)
            descriptor.write(into: &payloads[index].bytes)
            payloads[index].bytes.append(contentsOf: frame[offset..<offset + size])
            payloads[index].marker = index == count - 1
            offset += size
        }
        if payloads.count > count { payloads.removeLast(payloads.count - count) }
        return count
    }

    /// Packetizes one frame into new payloads.
    public mutating func packetize(_ frame: [UInt8], template: VP8PayloadDescriptor = VP8PayloadDescriptor()) -> [VP8RTPPayload] {
        var payloads: [VP8RTPPayload] = []
        packetize(frame, template: template, into: &payloads)
        return payloads
    }
}
