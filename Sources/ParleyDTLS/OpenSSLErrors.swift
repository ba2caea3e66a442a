import COpenSSL
import CParleyShim

/// OpenSSL's per-thread error queue, turned into text for a failure reason.
enum OpenSSLErrors {
    /// Empties the queue and returns its entries, oldest first, joined by "; ".
    static func drain() -> String {
        var entries: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            entries.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return entries.joined(separator: "; ")
    }

    /// Drops stale entries, so the next `SSL_get_error` judges only the call that follows.
    static func clear() {
        ERR_clear_error()
    }
}

/// Why a DTLS context, certificate or endpoint could not be set up (never on the packet path).
public struct DTLSSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The OpenSSL call that failed.
    public let operation: String
    /// OpenSSL's error queue at the time.
    public let details: String

    init(_ operation: String) {
        self.operation = operation
        details = OpenSSLErrors.drain()
    }

    public var description: String { details.isEmpty ? operation : "\(operation): \(details)" }
}
