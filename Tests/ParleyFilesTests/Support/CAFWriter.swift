import Foundation

/// Writes Core Audio Format files chunk by chunk (big-endian, 64-bit chunk sizes), the way
/// iPhones record them.
enum CAFWriter {
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).reversed().map { UInt8(value >> (8 * $0) & 0xFF) } }

    static func chunk(_ type: String, _ body: [UInt8], declaredSize: UInt64? = nil) -> [UInt8] {
        Array(type.utf8) + u64(declaredSize ?? UInt64(body.count)) + body
    }

    static func desc(sampleRate: Double, format: String, bytesPerPacket: UInt32, framesPerPacket: UInt32, channels: UInt32 = 1,
                     bits: UInt32 = 0) -> [UInt8] {
        chunk("desc", u64(sampleRate.bitPattern) + Array(format.utf8) + u32(0) + u32(bytesPerPacket) + u32(framesPerPacket)
              + u32(channels) + u32(bits))
    }

    /// The packet table's header; each packet's size (a variable-length integer) follows, one byte here.
    static func pakt(packets: UInt64, validFrames: UInt64, priming: UInt32, remainder: UInt32, sizes: [UInt8] = []) -> [UInt8] {
        chunk("pakt", u64(packets) + u64(validFrames) + u32(priming) + u32(remainder) + sizes)
    }

    /// `data`: the edit count, then the audio.
    static func data(_ audio: [UInt8], toTheEnd: Bool = false) -> [UInt8] {
        chunk("data", u32(0) + audio, declaredSize: toTheEnd ? UInt64.max : nil)
    }

    static func file(_ chunks: [[UInt8]]) -> [UInt8] {
        Array("caff".utf8) + [0x00, 0x01, 0x00, 0x00] + chunks.flatMap { $0 }
    }

    /// AAC as the iPhone's recorder writes it: 1024 frames a packet, 2112 frames of priming.
    static func iPhoneAAC(seconds: Double, sampleRate: Double = 44_100) -> [UInt8] {
        let valid = UInt64((seconds * sampleRate).rounded())
        let total = valid + 2_112
        let packets = (total + 1_023) / 1_024
        let remainder = UInt32(packets * 1_024 - total)
        return file([desc(sampleRate: sampleRate, format: "aac ", bytesPerPacket: 0, framesPerPacket: 1_024),
                     chunk("kuki", [0x03, 0x80, 0x80, 0x80, 0x22]),
                     pakt(packets: packets, validFrames: valid, priming: 2_112, remainder: remainder,
                          sizes: [UInt8](repeating: 0x10, count: Int(packets))),
                     data([UInt8](repeating: 0xA5, count: Int(packets) * 16))])
    }
}
