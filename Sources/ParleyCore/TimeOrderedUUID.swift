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

    /// The id for `millis` since 1970 and 128 random bits, of which 74 are used: written straight
    /// into the string's storage (every message, event and session gets one; through `UUID`'s
    /// `uuidString` and `lowercased()` it was three allocations and two passes).
    public static func make(millis: UInt64, random: (UInt64, UInt64)) -> String {
        // The 16 bytes as two words, most significant first. Bytes 6–7: the version over the low
        // byte of `random.0`, then its second; bytes 8–15: the variant over the low byte of
        // `random.1`, then its others in order.
        let high = (millis & 0xffff_ffff_ffff) << 16 | (0x70 | random.0 & 0x0f) << 8 | (random.0 >> 8 & 0xff)
        let low = (0x80 | random.1 & 0x3f) << 56 | (random.1.byteSwapped & 0x00ff_ffff_ffff_ffff)
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var position = 0
            for nibble in 0..<32 {
                if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let word = nibble < 16 ? high : low
                buffer[position] = digits.utf8Start[Int(truncatingIfNeeded: word >> UInt64(60 - 4 * (nibble % 16))) & 0xf]
                position += 1
            }
            return position
        }
    }
}
