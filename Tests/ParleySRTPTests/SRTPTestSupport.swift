import ParleySRTP

/// Runs one in-place SRTP operation on a copy of `packet` in a buffer with `spare` bytes of room.
enum Packet {
    typealias Operation = @Sendable (inout SRTPSession, UnsafeMutableRawBufferPointer, inout Int) -> SRTPStatus

    static let protectRTP: Operation = { $0.protectRTP($1, length: &$2) }
    static let unprotectRTP: Operation = { $0.unprotectRTP($1, length: &$2) }
    static let protectRTCP: Operation = { $0.protectRTCP($1, length: &$2) }
    static let unprotectRTCP: Operation = { $0.unprotectRTCP($1, length: &$2) }

    static func run(_ operation: Operation, _ session: inout SRTPSession, _ packet: [UInt8],
                    spare: Int = 64) -> (SRTPStatus, [UInt8]) {
        var buffer = packet + [UInt8](repeating: 0, count: spare)
        var length = packet.count
        let status = buffer.withUnsafeMutableBytes { operation(&session, $0, &length) }
        return (status, Array(buffer.prefix(status == .ok ? length : packet.count)))
    }
}
