/// A goodbye packet, PT 203 (RFC 3550 §6.6).
public struct RTCPBye: Sendable, Hashable {
    public var ssrcs: [UInt32]
    public var reason: String?

    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }

    /// Whether the SSRC list and optional reason fit in the body; allocation-free.
    static func hasValidShape(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) -> Bool {
        let count = Int(view.count)
        guard view.bodyRange.count >= 4 * count else { return false }
        let reasonOffset = view.bodyRange.lowerBound + 4 * count
        guard reasonOffset < view.bodyRange.upperBound else { return true }
        return Int(bytes[reasonOffset]) <= view.bodyRange.upperBound - reasonOffset - 1
    }

    init?(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        guard RTCPBye.hasValidShape(view, in: bytes) else { return nil }
        let base = view.bodyRange.lowerBound
        let count = Int(view.count)
        let ssrcs = (0..<count).map { bytes.readBE32(at: base + 4 * $0) }
        var reason: String?
        let reasonOffset = base + 4 * count
        if reasonOffset < view.bodyRange.upperBound {
            let length = Int(bytes[reasonOffset])
            let text = UnsafeRawBufferPointer(rebasing: bytes[(reasonOffset + 1)..<(reasonOffset + 1 + length)])
            reason = String(decoding: text, as: UTF8.self)
        }
        self.init(ssrcs: ssrcs, reason: reason)
    }
}
