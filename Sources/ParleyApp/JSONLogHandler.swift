import Foundation
import Logging

/// One JSON object per line on standard output (`log.format: json`), for a log shipper:
/// `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message`, then the metadata's
/// keys as strings. Written whole with one `write(2)`, so lines from threads do not interleave.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line = Self.line(time: Date(), level: event.level, label: label, message: "\(event.message)", metadata: merged)
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }

    /// The line for one event, without its line feed. Pure, for tests.
    public static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> [UInt8] {
        var object: [String: String] = [:]
        for (key, value) in metadata { object[key] = "\(value)" }
        object["time"] = time.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        object["level"] = level.rawValue
        object["logger"] = label
        object["message"] = message
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(object)) ?? Data(#"{"message":"log line not encodable"}"#.utf8))
    }
}
