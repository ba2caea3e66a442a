import Foundation
import Logging

/// The default ``SMSTransport``: writes each message as a small text file into a folder and
/// logs it, so a fresh install can sign people in by phone without an SMS provider.
///
/// Names sort by time (`20261122T120000.000Z-<12 hex>.sms`); the file holds `To: <number>`, a
/// blank line and the text. Written to a temporary name and renamed into place (readers never see
/// half a message), mode 0600 in a folder of mode 0700: the messages hold sign-in codes.
public struct OutboxSMSTransport: SMSTransport {
    public let directory: String
    private let logger: Logger

    public init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    public func send(_ message: SMSMessage) async throws {
        let now = Date()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let name = Self.fileName(for: now)
        let path = (directory as NSString).appendingPathComponent(name)
        let temporary = (directory as NSString).appendingPathComponent("." + name + ".tmp")
        let body = "To: \(message.to)\n\n\(message.text)\n"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(body.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: temporary])
        }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
        logger.info("SMS written to outbox", metadata: ["sms.to": "\(message.to)", "sms.path": "\(path)"])
    }

    static func fileName(for date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        let stamp = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(millis / 1000)))
        let fraction = String(format: "%03d", Int(millis % 1000))
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        return "\(stamp).\(fraction)Z-\(suffix).sms"
    }
}
