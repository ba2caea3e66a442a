/// What a file is, decided from its first bytes and never from a client's Content-Type.
public enum MediaType: String, Sendable, Codable, CaseIterable {
    case jpeg, png, heic, gif
    case mp4, mov, webm
    case m4a, mp3, aac, ogg, wav, weba, caf

    public enum Kind: String, Sendable, Codable { case image, video, audio }

    public var kind: Kind {
        switch self {
        case .jpeg, .png, .heic, .gif: .image
        case .mp4, .mov, .webm: .video
        case .m4a, .mp3, .aac, .ogg, .wav, .weba, .caf: .audio
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
        case .webm: "video/webm"
        case .m4a: "audio/mp4"
        case .mp3: "audio/mpeg"
        case .aac: "audio/aac"
        case .ogg: "audio/ogg"
        case .wav: "audio/wav"
        case .weba: "audio/webm"
        case .caf: "audio/x-caf"
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
        // EBML (RFC 8794) whose document type is WebM; `MediaProbe` tells video from audio-only.
        if starts(WebMProbe.signature) { return WebMProbe.docType(MediaBytes(bytes)) == "webm" ? .webm : nil }
        // Core Audio Format: "caff" and version 1 (what iPhones record voice memos into).
        if starts(Array("caff".utf8)) && starts([0x00, 0x01], at: 4) { return .caf }
        // Raw AAC: ADTS frames (layer 00, which no MPEG audio frame has), two in a row.
        if ADTSProbe.looksLikeADTS(MediaBytes(Array(bytes.prefix(8_192)))) { return .aac }
        // MP3: an ID3v2 tag, or an MPEG audio frame header (ISO/IEC 11172-3 §2.4.1.3) with valid
        // version, layer, bitrate and sample rate — the bare 11 sync bits would also match AAC ADTS.
        if starts(Array("ID3".utf8)) || MPEGAudioFrame(MediaBytes(Array(bytes.prefix(4))), at: 0) != nil {
            return .mp3
        }
        // ISO base media file (ISO/IEC 14496-12 §4.3): a leading `ftyp` box names the major brand.
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 { return isoType(bytes) }
        return nil
    }

    /// The type an ISO base media file declares in its `ftyp` box (ISO/IEC 14496-12 §4.3): the major
    /// brand, else the first compatible brand that names a type. HEIF brands (ISO/IEC 23008-12
    /// Annex B) are HEIC, except a `mif1`/`msf1` file whose brands say AVIF (not supported);
    /// `qt  ` is QuickTime; `M4A `/`M4B `/`M4P ` are iTunes audio; the ISO, MP4, 3GPP and `M4V`
    /// families are MP4. An unknown brand with no known compatible brand is not recognised.
    /// `MediaProbe` refines MP4/MOV/M4A further from the tracks actually present.
    private static func isoType(_ bytes: [UInt8]) -> MediaType? {
        func brand(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
        let major = brand(at: 8)
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let brandsEnd = min(bytes.count, max(boxSize, 16))
        let compatible = stride(from: 16, to: brandsEnd - 3, by: 4).map { brand(at: $0) }
        func type(of brand: String) -> MediaType? {
            switch brand {
            case "heic", "heix", "heim", "heis", "hevc", "hevx": return .heic
            case "mif1", "msf1", "miaf":
                return compatible.contains { ["avif", "avis"].contains($0) } ? nil : .heic
            case "qt  ": return .mov
            case "M4A ", "M4B ", "M4P ": return .m4a
            case "avc1", "dash", "mmp4", "MSNV", "XAVC", "f4v ", "cmfc", "cmf2": return .mp4
            default:
                return ["iso", "mp4", "3gp", "3g2", "M4V"].contains { brand.hasPrefix($0) } ? .mp4 : nil
            }
        }
        if ["avif", "avis"].contains(major) { return nil }
        if let type = type(of: major) { return type }
        for candidate in compatible where !["mif1", "msf1", "miaf"].contains(candidate) {
            if let type = type(of: candidate) { return type }
        }
        return nil
    }
}
