import Foundation
import Logging
import ParleyCore

/// Quotes (seed 003): something one person said and others heard, seen only by those who were
/// there — the sayer, the hearers — and the one who added it. People are named by phone number,
/// so a quote can name someone before they join; when they do, it points at their account.
public final class QuoteService: Sendable {
    let store: any QuoteStore
    let clock: any WallClock
    let logger: Logger
    /// The longest text, in characters.
    public let maxLength: Int
    /// Quotes added per user and hour (``QuoteRules/quotesPerHour``).
    let addLimit = RateLimiter(limit: QuoteRules.quotesPerHour, window: 3600)

    public init(store: any QuoteStore, clock: any WallClock, maxLength: Int, logger: Logger) {
        self.store = store
        self.clock = clock
        self.maxLength = maxLength
        self.logger = logger
    }

    /// Adds a quote. Numbers written without a country code are read in `countryCode` (the
    /// adder's own number's, when they have one).
    public func add(
        by adder: UserID, text: String, saidBy: NamedNumber, heardBy: [NamedNumber], countryCode: String?
    ) async throws -> QuoteView {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.count <= maxLength else { throw QuoteErrors.invalidText(maxLength) }
        let sayer = try person(saidBy, countryCode: countryCode)
        let hearers = try heardBy.map { try person($0, countryCode: countryCode) }
        let numbers = hearers.map(\.phoneNumber)
        guard (1...QuoteRules.maxHearers).contains(hearers.count), Set(numbers).count == numbers.count,
              !numbers.contains(sayer.phoneNumber)
        else { throw QuoteErrors.noHearers }
        try addLimit.admit(adder.rawValue, now: clock.now())
        let quote = try await store.insert(id: .generate(), text: text, addedBy: adder, at: clock.now(), sayer: sayer, hearers: hearers)
        logger.info("quote added", metadata: ["quote": "\(quote.id)", "user": "\(adder)"])
        return QuoteView(quote: quote, names: [:])
    }

    public func quote(_ id: QuoteID, viewer: UserID) async throws -> QuoteView {
        guard let quote = try await store.quote(id: id, viewer: viewer) else { throw QuoteErrors.notFound }
        return quote
    }

    /// The home feed: everything `viewer` said, heard or added, newest first; only what
    /// `saidBy` (a phone number or a user id) said, when given.
    public func feed(viewer: UserID, saidBy: String? = nil, cursor: String?, limit: Int) async throws -> QuotePage {
        var person = saidBy
        if let saidBy, let number = PhoneNumber(saidBy) { person = number.e164 }
        let quotes = try await store.feed(viewer: viewer, saidBy: person, before: try Self.position(cursor), limit: limit)
        return Self.page(quotes, limit: limit)
    }

    /// My profile's tabs: what I said, or heard.
    public func mine(viewer: UserID, role: QuoteRole, cursor: String?, limit: Int) async throws -> QuotePage {
        Self.page(try await store.quotes(of: viewer, role: role, before: try Self.position(cursor), limit: limit), limit: limit)
    }

    /// Search as you type: quotes `viewer` may see whose text holds `query`.
    public func search(viewer: UserID, query: String, cursor: String?, limit: Int) async throws -> QuotePage {
        let text = String(query.trimmingCharacters(in: .whitespacesAndNewlines).prefix(QuoteRules.maxQueryLength))
        let position = try Self.position(cursor)
        if text.isEmpty { return QuotePage(quotes: [], nextCursor: nil) }
        return Self.page(try await store.search(viewer: viewer, text: text, before: position, limit: limit), limit: limit)
    }

    /// Names from the viewer's address book, shown to them for people who have not joined.
    public func saveContacts(owner: UserID, _ contacts: [NamedNumber], countryCode: String?) async throws -> Int {
        guard contacts.count <= QuoteRules.maxContactsPerCall else { throw QuoteErrors.tooManyContacts }
        var book: [String: String] = [:]
        for contact in contacts {
            let person = try person(contact, countryCode: countryCode)
            book[person.phoneNumber] = person.bookName
        }
        try await store.saveContacts(owner: owner, book)
        return book.count
    }

    /// Someone joined with `phoneNumber`: the quotes naming it are theirs to see, under their name.
    public func joined(_ user: UserID, phoneNumber: String) async throws {
        let count = try await store.claim(phoneNumber: phoneNumber, for: user)
        if count > 0 { logger.info("quotes claimed by a new account", metadata: ["user": "\(user)", "count": "\(count)"]) }
    }

    func person(_ named: NamedNumber, countryCode: String?) throws -> QuotePerson {
        guard let number = PhoneNumber(named.phoneNumber, defaultCountryCode: countryCode) else { throw QuoteErrors.invalidPhoneNumber }
        let name = named.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= QuoteRules.maxNameLength else { throw QuoteErrors.invalidName }
        return QuotePerson(phoneNumber: number.e164, bookName: name)
    }

    static func position(_ cursor: String?) throws -> Int64? {
        guard let cursor else { return nil }
        guard let seq = Int64(cursor), seq >= 0 else { throw QuoteErrors.invalidCursor }
        return seq
    }

    static func page(_ quotes: [QuoteView], limit: Int) -> QuotePage {
        QuotePage(quotes: quotes, nextCursor: quotes.count == limit ? quotes.last.map { String($0.quote.seq) } : nil)
    }
}
