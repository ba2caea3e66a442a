import Foundation

/// UUID version 7 (RFC 9562 §5.7): 48 bits of Unix time in milliseconds, then 74 random bits
/// (the version and variant fields between them). Ids made in a later millisecond sort after
/// those of an earlier one, as text too (within one millisecond in no set order), so an index on
/// them grows at its end: a busy chat's messages dirty one page of
/// their primary key per commit rather than a random page per message.
public enum TimeOrderedUUID {
    /// A new id in the canonical lowercase form (`xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx`).
    public static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(millis: UInt64(max(0, date.timeIntervalSince1970 * 1000)), random: (generator.next(), generator.next()))
    }

    /// The id for `millis` since 1970 and 128 random bits, of which 74 are used.
    public static func make(millis: UInt64, random: (UInt64, UInt64)) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (40 - 8 * UInt64(index))) }
        for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: random.0 >> (8 * UInt64(index - 6))) }
        for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: random.1 >> (8 * UInt64(index - 8))) }
        bytes[6] = 0x70 | (bytes[6] & 0x0f)   // version 7
        bytes[8] = 0x80 | (bytes[8] & 0x3f)   // variant 0b10
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
