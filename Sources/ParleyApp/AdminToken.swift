import Logging

/// The bearer token of the operations routes: `admin.token` (env `ADMIN_TOKEN`) when set,
/// else one generated at first start and kept in `<data>/admin-token` (mode 0600) — on one node;
/// nodes sharing PostgreSQL are given it.
enum AdminToken {
    static let fileName = "admin-token"

    static func resolve(_ config: ParleyConfiguration, logger: Logger) throws -> String {
        if !config.adminToken.isEmpty {
            if config.adminToken.count < 16 {
                logger.warning("admin.token is short: anyone who guesses it can read status and create accounts")
            }
            return config.adminToken
        }
        let path = config.dataDirectory + "/" + fileName
        let token = try SecretFile.load(path, shared: config.sharesDatabase, setting: "admin.token (ADMIN_TOKEN)")
        logger.notice("admin token for /admin and /metrics", metadata: ["file": "\(path)"])
        return token
    }
}
