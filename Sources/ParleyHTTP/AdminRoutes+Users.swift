import Hummingbird
import ParleyAccounts
import ParleyCore
import ParleyFriends

/// `POST /admin/users`: many verified accounts at once, for load runs and for operators
/// seeding a test installation. Either numbered accounts sharing one password
/// (`{count, namePrefix?, emailDomain?, password, befriend?}`) or a list
/// (`{users:[{name, email, password}], befriend?}`); 201 `{users:[{id, email}]}` in the order asked,
/// with `accessToken`, `refreshToken` and `expiresIn` per account when `sessions` is true.
extension AdminRoutes {
    struct SeedBody: Decodable {
        let count: Int?
        let namePrefix: String?
        let emailDomain: String?
        let password: String?
        let befriend: String?
        let users: [Entry]?
        /// Also open a session per account and return its tokens (saves a login per account).
        let sessions: Bool?

        struct Entry: Decodable {
            let name: String
            let email: String
            let password: String
        }
    }

    /// Who becomes friends with whom among the new accounts.
    enum Befriend: String {
        case none
        /// Accounts 2k and 2k+1 (the last one alone when the number is odd).
        case pairs
        /// Everyone with everyone: n(n-1)/2 friendships, so at most `maxToBefriendAll` accounts.
        case all
    }

    struct Created: ResponseEncodable {
        struct User: Encodable {
            let id: String
            let email: String
            var accessToken: String?
            var refreshToken: String?
            var expiresIn: Int?
        }
        let users: [User]
    }

    /// 10 000 entries of names, addresses and passwords stay well under this.
    static let seedBodyLimit = 8 << 20
    static let maxToBefriendAll = 200

    func createUsers(_ request: Request, context: ParleyRequestContext) async throws -> Response {
        let body = try await RequestBody.json(SeedBody.self, from: request, limit: Self.seedBodyLimit)
        let befriend = try Self.befriendMode(body.befriend)
        let wanted = try Self.accounts(from: body)
        if befriend == .all, wanted.count > Self.maxToBefriendAll {
            throw ParleyError.rule("too_many_to_befriend", "befriend \"all\" takes at most \(Self.maxToBefriendAll) users")
        }
        let created = try await accounts.createVerifiedUsers(wanted)
        try await befriendNew(created.map(\.id), befriend)
        context.logger.notice("admin created users", metadata: ["count": "\(created.count)", "befriend": "\(befriend.rawValue)"])
        var users = created.map { Created.User(id: $0.id.rawValue, email: $0.email ?? "") }
        if body.sessions == true {
            let grants = try await accounts.openSeededSessions(for: created, deviceName: "seeded")
            for (index, grant) in grants.enumerated() {
                users[index].accessToken = grant.accessToken
                users[index].refreshToken = grant.refreshToken
                users[index].expiresIn = grant.expiresIn
            }
        }
        return try Created(users: users)
            .response(from: request, context: context).with(status: .created)
    }

    static func befriendMode(_ text: String?) throws -> Befriend {
        guard let text else { return .none }
        guard let mode = Befriend(rawValue: text) else { throw ParleyError.invalidField("befriend", "none, pairs or all") }
        return mode
    }

    /// The accounts a body asks for: exactly one of `count` and `users`.
    static func accounts(from body: SeedBody) throws -> [AccountService.SeedAccount] {
        switch (body.count, body.users) {
        case (let count?, nil):
            guard let password = body.password else { throw ParleyError(.badRequest, code: "missing_field", "password is required with count") }
            return try AccountService.SeedAccount.numbered(
                count: count, namePrefix: body.namePrefix ?? "user", emailDomain: body.emailDomain ?? "parley.test", password: password)
        case (nil, let users?):
            return users.map { AccountService.SeedAccount(name: $0.name, email: $0.email, password: $0.password) }
        default:
            throw ParleyError.badRequest("Give either count (with password) or users", code: "invalid_field")
        }
    }

    func befriendNew(_ ids: [UserID], _ mode: Befriend) async throws {
        switch mode {
        case .none: return
        case .pairs:
            for k in stride(from: 0, to: ids.count - 1, by: 2) { try await friends.seedFriendship(ids[k], ids[k + 1]) }
        case .all:
            for i in ids.indices { for j in ids.indices where j > i { try await friends.seedFriendship(ids[i], ids[j]) } }
        }
    }
}
