import Foundation

/// Times on the wire: ISO 8601, UTC, milliseconds (`2026-11-22T12:00:00.000Z`), in REST bodies,
/// realtime events and replies alike.
public enum WireTime {
    public static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
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
