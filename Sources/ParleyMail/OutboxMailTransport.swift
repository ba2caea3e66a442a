import Foundation
import Logging
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The default ``MailTransport``: writes each message as an `.eml` file into a folder and logs
/// it, so a fresh install can "send" verification mail without any mail server.
///
/// File names sort by creation time (`20251122T143507.123Z-<random>.eml`, UTC). Each file is
/// written to a hidden temporary name and renamed into place, so a reader never sees a partial
/// message. Files are created mode 0600 and a missing folder mode 0700: they hold login links.
public struct OutboxMailTransport: MailTransport {
    /// The folder messages are written to.
    public let directory: String
    /// Renders messages before they are written.
    public let renderer: MailRenderer
    private let logger: Logger

    /// Creates a transport writing into `directory` (created on first use if missing), with
    /// messages from `from`.
    public init(directory: String, from: MailAddress, logger: Logger) {
        self.init(directory: directory, renderer: MailRenderer(from: from), logger: logger)
    }

    /// Creates a transport writing into `directory` with a custom renderer.
    public init(directory: String, renderer: MailRenderer, logger: Logger) {
        self.directory = directory
        self.renderer = renderer
        self.logger = logger
    }

    /// Renders `message` and writes it to the outbox.
    public func send(_ message: MailMessage) async throws {
        try await write(message)
    }

    /// Renders `message`, writes it to the outbox and returns the new file's path.
    @discardableResult
    public func write(_ message: MailMessage) async throws -> String {
        let now = Date()
        let rendered = try renderer.render(message, date: now)
        let name = Self.fileName(for: now)
        let directory = self.directory
        let path = try await NIOThreadPool.singleton.runIfActive {
            try Self.writeAtomically(Array(rendered.text.utf8), directory: directory, name: name)
        }
        logger.info(
            "Mail written to outbox",
            metadata: [
                "mail.to": .string(message.to),
                "mail.subject": .string(message.subject),
                "mail.message_id": .string(rendered.messageID),
                "mail.path": .string(path),
            ]
        )
        return path
    }

    /// `yyyyMMddTHHmmss.SSSZ-<12 hex>.eml`: lexical order is time order; the suffix keeps two
    /// messages in the same millisecond apart.
    static func fileName(for date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let p = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        func pad(_ value: Int?, _ width: Int) -> String {
            let digits = String(value ?? 0)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let stamp = pad(p.year, 4) + pad(p.month, 2) + pad(p.day, 2) + "T"
            + pad(p.hour, 2) + pad(p.minute, 2) + pad(p.second, 2) + "." + pad((p.nanosecond ?? 0) / 1_000_000, 3) + "Z"
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        return stamp + "-" + suffix + ".eml"
    }

    private static func writeAtomically(_ bytes: [UInt8], directory: String, name: String) throws -> String {
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        let finalPath = (directory as NSString).appendingPathComponent(name)
        let temporaryPath = (directory as NSString).appendingPathComponent("." + name + ".tmp")

        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ok = false
        defer {
            if !ok { unlink(temporaryPath) }
        }
        do {
            defer { close(fd) }
            try bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        ok = true
        return finalPath
    }
}

/// `write(2)`, under a name that does not clash with ``OutboxMailTransport/write(_:)``.
private func posixWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
    #elseif canImport(Musl)
    return Musl.write(fd, pointer, count)
    #else
    return Darwin.write(fd, pointer, count)
    #endif
}
