import Foundation
import ParleyCore
import ParleyStorage

/// A secret generated once and kept in the data folder (mode 0600), so tokens survive restarts
/// without anyone having to configure one.
enum SecretFile {
    /// The secret kept in `path`, made there on first use — except when several nodes share the
    /// database (`shared`): one node's made-up secret would not be the others', so the setting
    /// named `setting` must be given (or the file brought along from a moved installation).
    static func load(_ path: String, shared: Bool = false, setting: String = "") throws -> String {
        if let existing = try? String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
           existing.count >= 32 {
            return existing
        }
        if shared {
            throw ParleyError(.internalFailure, code: "invalid_config", """
                database.url is PostgreSQL, which several nodes share: set \(setting), the same on every node \
                (a secret each node made up for itself would not be the others'), or bring \(path) along from the installation you moved
                """)
        }
        let secret = SecretToken.generate().value
        guard FileManager.default.createFile(atPath: path, contents: Data(secret.utf8), attributes: [.posixPermissions: 0o600])
        else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
        return secret
    }
}
