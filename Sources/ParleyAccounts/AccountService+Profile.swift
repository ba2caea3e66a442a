import Foundation
import ParleyCore
import ParleyFiles

extension AccountService {
    public func user(id: UserID) async throws -> UserRecord {
        guard let user = try await store.user(id: id) else { throw AccountErrors.userNotFound }
        return user
    }

    public func users(ids: [UserID]) async throws -> [UserRecord] {
        try await store.users(ids: ids)
    }

    public func updateProfile(id: UserID, name: String?, status: String?) async throws -> UserRecord {
        var cleanName: String?, cleanStatus: String?
        if let name {
            guard let clean = AccountRules.cleanName(name) else { throw AccountErrors.invalidName }
            cleanName = clean
        }
        if let status {
            guard let clean = AccountRules.cleanStatus(status) else { throw AccountErrors.invalidStatus }
            cleanStatus = clean
        }
        if cleanName != nil || cleanStatus != nil {
            try await store.updateProfile(id: id, name: cleanName, status: cleanStatus, at: clock.now())
        }
        return try await user(id: id)
    }

    /// Records that the user's last realtime connection closed now ("last seen").
    public func markSeen(id: UserID) async throws {
        try await store.markSeen(id: id, at: clock.now())
    }

    /// Replaces the avatar with an image recognised from its bytes.
    public func setAvatar(id: UserID, image: [UInt8]) async throws -> UserRecord {
        let previous = try await user(id: id).avatarHash
        let hash = try storeAvatar(image)
        try await store.setAvatar(id: id, hash: hash.hex, at: clock.now())
        if let previous, previous != hash.hex { try await removeAvatarIfUnused(previous) }
        return try await user(id: id)
    }

    /// The avatar bytes and type for a hash that some user shows.
    public func avatar(hash: String) async throws -> (bytes: [UInt8], type: MediaType)? {
        guard let hash = ContentHash(hex: hash), try await store.avatarReferences(hash: hash.hex) > 0,
              let bytes = files.read(hash), let type = MediaType.sniff(bytes)
        else { return nil }
        return (bytes, type)
    }

    /// Deletes the account and everything that hangs off it, after checking the password (wrong
    /// ones count as wrong logins do, `clientAddress` as there).
    public func deleteAccount(id: UserID, password: String, clientAddress: String? = nil) async throws {
        let user = try await user(id: id)
        try await reauthenticate(user, password: password, clientAddress: clientAddress, what: "account_deletion")
        try await store.deleteUser(id: id)
        if let avatar = user.avatarHash { try await removeAvatarIfUnused(avatar) }
        logger.info("account deleted", metadata: ["user": "\(id)"])
    }

    /// Verified users by partial name or e-mail, for adding friends.
    public func search(
        query: String, viewer: UserID, excluding: Set<UserID> = [], cursor: UserSearchCursor?, limit: Int
    ) async throws -> (users: [UserRecord], next: UserSearchCursor?) {
        let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard query.count >= AccountRules.minimumQueryLength else { throw AccountErrors.queryTooShort }
        let limit = min(max(limit, 1), 50)
        let page = try await store.searchUsers(
            query: query, viewer: viewer, excluding: excluding, after: cursor, limit: limit + 1)
        let users = Array(page.prefix(limit))
        let next = page.count > limit
            ? users.last.map { UserSearchCursor(nameKey: SQLAccountStore.nameKey($0.name), id: $0.id) } : nil
        return (users, next)
    }

    func removeAvatarIfUnused(_ hex: String) async throws {
        guard let hash = ContentHash(hex: hex), try await store.avatarReferences(hash: hex) == 0 else { return }
        files.delete(hash)
    }
}
