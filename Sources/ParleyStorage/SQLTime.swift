import Foundation

/// Times are stored as integer milliseconds since 1970 (portable across SQLite and PostgreSQL,
/// and they sort).
extension Date {
    public var storageMillis: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
    public init(storageMillis: Int64) { self.init(timeIntervalSince1970: Double(storageMillis) / 1000) }
}
