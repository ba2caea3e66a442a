/// What a file is, decided from its first bytes and never from a client's Content-Type.
public enum MediaType: String, Sendable, Codable, CaseIterable {
    case jpeg, png, heic, gif
    case mp4, mov
    case m4a, mp3, ogg, wav

    public enum Kind: String, Sendable, Codable { case image, video, audio }

    public var kind: Kind {
        switch self {
        case .jpeg, .png, .heic, .gif: .image
        case .mp4, .mov: .video
        case .m4a, .mp3, .ogg, .wav: .audio
        }
    }

    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .gif: "image/gif"
        case .mp4: "video/mp4"
        case .mov: "video/quicktime"
        case .m4a: "audio/mp4"
        case .mp3: "audio/mpeg"
        case .ogg: "audio/ogg"
        case .wav: "audio/wav"
        }
    }

    /// Recognises the file from its signature (magic bytes); nil when it is none of the above.
    public static func sniff(_ bytes: [UInt8]) -> MediaType? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WAVE".utf8), at: 8) { return .wav }
        if starts(Array("OggS".utf8)) { return .ogg }
        if starts(Array("ID3".utf8)) || (bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0) {
            return .mp3
        }
        // ISO base media file (ISO/IEC 14496-12): a leading `ftyp` box names the major brand.
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return .heic
            case "qt  ": return .mov
            case "M4A ", "M4B ": return .m4a
            default: return .mp4
            }
        }
        return nil
    }
}
