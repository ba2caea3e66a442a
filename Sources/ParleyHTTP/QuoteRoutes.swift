import Foundation
import Hummingbird
import ParleyAccounts
import ParleyCore
import ParleyQuotes

/// `/v1/quotes`: quotes said and heard (seed 003), each route showing only what the caller said,
/// heard or added.
struct QuoteRoutes {
    let quotes: QuoteService
    let accounts: AccountService

    struct NamedNumberBody: Codable { let phoneNumber: String; let name: String }
    struct AddBody: Decodable { let text: String; let saidBy: NamedNumberBody; let heardBy: [NamedNumberBody] }
    struct ContactsBody: Decodable { let contacts: [NamedNumberBody] }
    struct ContactsSaved: ResponseEncodable { let saved: Int }

    struct PersonBody: ResponseEncodable {
        let phoneNumber: String
        /// Their chosen name once they joined; until then the caller's own name for them, else the adder's.
        let name: String
        let userId: String?
    }
    struct QuoteBody: ResponseEncodable {
        let id: String
        let text: String
        let saidBy: PersonBody
        let heardBy: [PersonBody]
        let addedBy: String?
        let createdAt: String
    }
    struct QuoteEnvelope: ResponseEncodable { let quote: QuoteBody }
    struct QuoteList: ResponseEncodable { let quotes: [QuoteBody]; let nextCursor: String? }
    struct Limits: ResponseEncodable { let maxLength: Int; let maxHearers: Int }

    func add(to group: RouterGroup<ParleyRequestContext>) {
        group.post(use: add)
        group.get(use: feed)
        group.get("limits", use: limits)
        group.get("search", use: search)
        group.get("said", use: said)
        group.get("heard", use: heard)
        group.put("contacts", use: contacts)
        group.get(":id", use: quote)
    }

    func add(_ request: Request, context: ParleyRequestContext) async throws -> EditedResponse<QuoteEnvelope> {
        let me = try context.requirePrincipal().userID
        let body = try await RequestBody.json(AddBody.self, from: request)
        let quote = try await quotes.add(
            by: me, text: body.text, saidBy: NamedNumber(phoneNumber: body.saidBy.phoneNumber, name: body.saidBy.name),
            heardBy: body.heardBy.map { NamedNumber(phoneNumber: $0.phoneNumber, name: $0.name) },
            countryCode: try await countryCode(of: me))
        return EditedResponse(status: .created, response: QuoteEnvelope(quote: try await present([quote])[0]))
    }

    /// The home feed, newest first; `saidBy` (a phone number or a user id) keeps what that person said.
    func feed(_ request: Request, context: ParleyRequestContext) async throws -> QuoteList {
        let me = try context.requirePrincipal().userID
        let saidBy = request.uri.queryParameters["saidBy"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        return try await list(try await quotes.feed(viewer: me, saidBy: saidBy, cursor: cursor(request), limit: try limit(request)))
    }

    func said(_ request: Request, context: ParleyRequestContext) async throws -> QuoteList {
        let me = try context.requirePrincipal().userID
        return try await list(try await quotes.mine(viewer: me, role: .said, cursor: cursor(request), limit: try limit(request)))
    }

    func heard(_ request: Request, context: ParleyRequestContext) async throws -> QuoteList {
        let me = try context.requirePrincipal().userID
        return try await list(try await quotes.mine(viewer: me, role: .heard, cursor: cursor(request), limit: try limit(request)))
    }

    func search(_ request: Request, context: ParleyRequestContext) async throws -> QuoteList {
        let me = try context.requirePrincipal().userID
        let query = request.searchText("query")
        return try await list(try await quotes.search(viewer: me, query: query, cursor: cursor(request), limit: try limit(request)))
    }

    func quote(_ request: Request, context: ParleyRequestContext) async throws -> QuoteEnvelope {
        let me = try context.requirePrincipal().userID
        let quote = try await quotes.quote(QuoteID(rawValue: try context.parameters.require("id")), viewer: me)
        return QuoteEnvelope(quote: try await present([quote])[0])
    }

    /// Names from the caller's address book, which they see for people not yet on Parley.
    func contacts(_ request: Request, context: ParleyRequestContext) async throws -> ContactsSaved {
        let me = try context.requirePrincipal().userID
        // A whole address book's worth (QuoteRules.maxContactsPerCall names at up to 64
        // characters) is larger than other JSON bodies: past the count, 422 rather than 413.
        let body = try await RequestBody.json(ContactsBody.self, from: request, limit: 1 << 20)
        let saved = try await quotes.saveContacts(
            owner: me, body.contacts.map { NamedNumber(phoneNumber: $0.phoneNumber, name: $0.name) }, countryCode: try await countryCode(of: me))
        return ContactsSaved(saved: saved)
    }

    /// What the app counts down from.
    func limits(_ request: Request, context: ParleyRequestContext) async throws -> Limits {
        _ = try context.requirePrincipal()
        return Limits(maxLength: quotes.maxLength, maxHearers: QuoteRules.maxHearers)
    }

    func cursor(_ request: Request) -> String? {
        request.uri.queryParameters["cursor"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
    }

    func limit(_ request: Request) throws -> Int { try request.pageLimit(default: 30, max: 100) }

    /// National numbers the caller types are read in the country of their own number.
    func countryCode(of user: UserID) async throws -> String? {
        try await accounts.user(id: user).phoneNumber.flatMap { PhoneNumber($0)?.countryCode }
    }

    func list(_ page: QuotePage) async throws -> QuoteList {
        QuoteList(quotes: try await present(page.quotes), nextCursor: page.nextCursor)
    }

    /// Joined people under the name they chose; the others as the viewer knows them.
    func present(_ views: [QuoteView]) async throws -> [QuoteBody] {
        let ids = Set(views.flatMap { [$0.quote.sayer] + $0.quote.hearers }.compactMap(\.userID))
        let names = Dictionary(try await accounts.users(ids: Array(ids)).map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        return views.map { view in
            func person(_ person: QuotePerson) -> PersonBody {
                PersonBody(phoneNumber: person.phoneNumber, name: person.userID.flatMap { names[$0] } ?? view.bookName(of: person),
                           userId: person.userID?.rawValue)
            }
            let quote = view.quote
            return QuoteBody(id: quote.id.rawValue, text: quote.text, saidBy: person(quote.sayer), heardBy: quote.hearers.map(person),
                             addedBy: quote.addedBy?.rawValue, createdAt: WireTime.string(quote.createdAt))
        }
    }
}
