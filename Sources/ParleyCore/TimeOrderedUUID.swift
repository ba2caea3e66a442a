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
        let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                               bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
        return uuid.uuidString.lowercased()   // as every other id is written
    }
}
