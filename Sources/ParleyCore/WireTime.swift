import Foundation

/// Times on the wire: RFC 3339, UTC, whole seconds (`2026-11-22T12:00:00Z`), in REST bodies,
/// realtime events and replies alike.
///
/// Whole seconds because that is what the platform's defaults read: `JSONDecoder`'s `.iso8601`
/// strategy and swift-openapi-generator's default date transcoder both reject fractional
/// seconds. Nothing orders by sub-second times: order comes from ids, sequence numbers and cursors.
public enum WireTime {
    /// Years 1970–9999 are written here from the day number (every message view and event has a
    /// time; Foundation's format style goes through a Gregorian calendar's date components, and
    /// was 4 % of the task threads' time in a busy chat). Others are left to Foundation.
    public static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= 0, seconds < 253_402_300_800 else {   // 10000-01-01T00:00:00Z
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
        }
        let total = Int(seconds)
        let (days, second) = total.quotientAndRemainder(dividingBy: 86_400)
        let (year, month, day) = civil(fromDays: days)
        return String(unsafeUninitializedCapacity: 20) { buffer in
            var position = 0
            func put(_ value: Int, digits: Int) {
                var divisor = 1
                for _ in 1..<digits { divisor *= 10 }
                while divisor > 0 {
                    buffer[position] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    position += 1
                    divisor /= 10
                }
            }
            func put(_ character: Unicode.Scalar) {
                buffer[position] = UInt8(ascii: character)
                position += 1
            }
            put(year, digits: 4); put("-"); put(month, digits: 2); put("-"); put(day, digits: 2); put("T")
            put(second / 3_600, digits: 2); put(":"); put(second / 60 % 60, digits: 2); put(":"); put(second % 60, digits: 2); put("Z")
            return position
        }
    }

    /// The proleptic Gregorian date of day `days` since 1970-01-01 (`days` ≥ 0): eras of 400
    /// years counted from March, so that the leap day ends each year (Howard Hinnant's
    /// `civil_from_days`).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468                       // from 0000-03-01
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097                                            // 0…146 096
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365   // 0…399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)    // 0…365, from March
        let monthFromMarch = (5 * dayOfYear + 2) / 153                                    // 0…11
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A JSON encoder writing dates as `string(_:)` and keys sorted (the same value is the same bytes).
    public static func jsonEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(string(date))
        }
        encoder.outputFormatting = .sortedKeys
        return encoder
    }
}
