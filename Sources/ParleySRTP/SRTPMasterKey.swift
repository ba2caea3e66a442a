/// One direction's SRTP master key and master salt (RFC 3711 §8.2).
public struct SRTPMasterKey: Sendable, Hashable {
    public let key: [UInt8]
    public let salt: [UInt8]

    public init(key: [UInt8], salt: [UInt8]) {
        self.key = key
        self.salt = salt
    }

    /// Whether the lengths fit `profile`.
    public func fits(_ profile: SRTPProfile) -> Bool {
        key.count == profile.masterKeyLength && salt.count == profile.masterSaltLength
    }
}
