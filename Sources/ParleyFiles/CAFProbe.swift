import Foundation

/// Duration of a Core Audio Format file (Apple, "Core Audio Format Specification 1.0"): what an
/// iPhone's recorder writes, with AAC, Opus, linear PCM, ALAC or another codec inside.
///
/// After the 8-byte header ("caff", version 1 as a 16-bit big-endian number, flags 0) come chunks:
/// a four-character type, a 64-bit big-endian size (-1 for a `data` chunk that runs to the end of
/// the file, as a recorder that could not go back writes it) and the body. All fields are big-endian.
/// - `desc` (32 bytes, always first): sample rate (a 64-bit float), format id (`lpcm`, `aac `,
///   `opus`, …), flags, bytes per packet, frames per packet, channels, bits per channel.
/// - `pakt` (packet table, for formats with variable-size or variable-length packets): the number
///   of packets, the number of valid frames, and the priming and remainder frames the encoder
///   added. Valid frames over the sample rate is the exact duration; where a writer left them 0,
///   packets × frames per packet less priming and remainder.
/// - `data`: a 32-bit edit count, then the audio. For constant-size packets (PCM) the packets in
///   it × frames per packet over the sample rate is the duration.
enum CAFProbe {
    static func probe(_ bytes: MediaBytes) -> MediaInfo? {
        guard bytes.matches("caff", at: 0), bytes.u16be(4) == 1 else { return nil }
        var sampleRate: Double?, bytesPerPacket: UInt64 = 0, framesPerPacket: UInt64 = 0
        var packets: UInt64?, validFrames: UInt64?, priming: UInt64 = 0, remainder: UInt64 = 0
        var audioBytes: Int?
        var offset = 8
        while let type = bytes.fourCC(offset), let declared = bytes.u64be(offset + 4) {
            let body = offset + 12
            let size: Int
            if declared == UInt64.max, type == "data" {
                size = bytes.count - body   // -1: to the end of the file.
            } else if declared > UInt64(Int.max) {
                break
            } else {
                size = Int(declared)
            }
            switch type {
            case "desc":
                guard size >= 32, bytes.has(body, 32), let bits = bytes.u64be(body) else { return MediaInfo(type: .caf) }
                sampleRate = Double(bitPattern: bits)
                bytesPerPacket = UInt64(bytes.u32be(body + 16) ?? 0)
                framesPerPacket = UInt64(bytes.u32be(body + 20) ?? 0)
            case "pakt":
                guard size >= 24, bytes.has(body, 24) else { break }
                packets = bytes.u64be(body)
                validFrames = bytes.u64be(body + 8)
                priming = UInt64(bytes.u32be(body + 16) ?? 0)
                remainder = UInt64(bytes.u32be(body + 20) ?? 0)
            case "data":
                if audioBytes == nil { audioBytes = max(min(size, bytes.count - body) - 4, 0) }
            default:
                break
            }
            guard size <= bytes.count - body else { break }   // The rest is cut off.
            offset = body + size
        }
        guard let sampleRate, sampleRate.isFinite, sampleRate >= 1, sampleRate <= 1_000_000 else { return MediaInfo(type: .caf) }
        let frames: UInt64?
        if let validFrames, validFrames > 0 {
            frames = validFrames
        } else if let packets, packets > 0, framesPerPacket > 0 {
            let (total, overflow) = packets.multipliedReportingOverflow(by: framesPerPacket)
            frames = overflow ? nil : total > priming + remainder ? total - priming - remainder : 0
        } else if let audioBytes, bytesPerPacket > 0, framesPerPacket > 0 {
            frames = UInt64(audioBytes) / bytesPerPacket * framesPerPacket
        } else {
            frames = nil
        }
        guard let frames else { return MediaInfo(type: .caf) }
        // Sample rates are whole numbers in practice (8000 … 192000); a fraction is kept in
        // thousandths rather than lost.
        let milliHertz = UInt64((sampleRate * 1000).rounded())
        let (scaled, overflow) = frames.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return MediaInfo(type: .caf) }
        return MediaInfo(type: .caf, durationMs: MediaInfo.milliseconds(scaled, per: milliHertz))
    }
}
