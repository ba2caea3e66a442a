import Foundation

/// Times on the wire: RFC 3339, UTC, whole seconds (`2026-11-22T12:00:00Z`), in REST bodies,
/// realtime events and replies alike.
///
/// Whole seconds because that is what the platform's defaults read: `JSONDecoder`'s `.iso8601`
/// strategy and swift-openapi-generator's default date transcoder both reject fractional
/// seconds. Nothing orders by sub-second times: order comes from ids, sequence numbers and cursors.
public enum WireTime {
    public static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
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
