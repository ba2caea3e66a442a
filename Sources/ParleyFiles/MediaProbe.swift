import Foundation

/// Decides what an uploaded file is from its bytes alone and reads what its container says about
/// it: the duration of audio and video, the pixel size of images and video. Pure: bytes in, values
/// out — no I/O, no logging — and total: malformed or truncated input yields nil or a partial answer
/// (nil fields), never a trap.
///
/// The signature check is `MediaType.sniff`; then, per format (see each parser for its spec):
/// - MP4/MOV/M4A — `ISOMediaProbe` (ISO/IEC 14496-12, QuickTime); the tracks can turn an `.mp4`
///   with sound but no picture into `.m4a`.
/// - HEIC — `HEIFProbe` (ISO/IEC 23008-12).
/// - MP3 — `MPEGAudioProbe` (ISO/IEC 11172-3, 13818-3; ID3v2; Xing/Info, LAME, VBRI tags).
/// - AAC in ADTS frames — `ADTSProbe` (ISO/IEC 13818-7, 14496-3).
/// - Ogg — `OggProbe` (RFC 3533, RFC 7845 Opus, Vorbis I).
/// - WebM — `WebMProbe` (RFC 8794 EBML, RFC 9559 Matroska); audio-only WebM is `.weba`.
/// - WAV — `WAVProbe` (RIFF WAVE).
/// - CAF — `CAFProbe` (Apple Core Audio Format: AAC, Opus, PCM, … as iPhones record).
/// - PNG, JPEG, GIF — `ImageProbe`.
///
/// Returns nil when the bytes are none of the supported types, and also when an MP3 signature is
/// not followed by real MPEG audio frames, an Ogg file does not start an Opus or Vorbis stream, or a
/// WebM file has neither a video nor an audio track
/// (those signatures are too weak or too broad to trust alone). For the stronger signatures a
/// damaged body still yields the type, with the unreadable fields nil.
public enum MediaProbe {
    public static func probe(_ bytes: [UInt8]) -> MediaInfo? { probe(MediaBytes(bytes)) }

    /// The same, over a file on disk read through a memory map: an upload of 100 MiB is probed
    /// without being copied into memory. Nil also when the file cannot be opened.
    public static func probe(fileAt path: String) -> MediaInfo? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return probe(MediaBytes(data))
    }

    /// How much of the start of a file decides its type (signatures, an ISO `ftyp` box).
    static let sniffLength = 64 * 1024

    static func probe(_ view: MediaBytes) -> MediaInfo? {
        guard let type = MediaType.sniff(Array(view.bytes.prefix(sniffLength))) else { return nil }
        switch type {
        case .mp4, .mov, .m4a, .heic:
            return ISOMediaProbe.probe(view, sniffed: type)
        case .mp3:
            return MPEGAudioProbe.probe(view)
        case .aac:
            return ADTSProbe.probe(view)
        case .ogg:
            return OggProbe.probe(view)
        case .webm, .weba:
            return WebMProbe.probe(view)
        case .wav:
            return WAVProbe.probe(view)
        case .caf:
            return CAFProbe.probe(view)
        case .jpeg, .png, .gif:
            let size = ImageProbe.size(view, type: type)
            return MediaInfo(type: type, width: size?.width, height: size?.height)
        }
    }
}
