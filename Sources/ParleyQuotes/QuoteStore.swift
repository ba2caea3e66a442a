import Foundation
import ParleyCore

/// What Quotes needs from storage. Every read names its viewer and shows only the quotes that
/// viewer said, heard or added. `SQLQuoteStore` serves it over SQLite (PostgreSQL to follow:
/// the same statements, search on pg_trgm instead of FTS5).
public protocol QuoteStore: Sendable {
    /// Stores a quote; each person's account (by number) is linked at once if there is one, and
    /// the adder and those accounts may see it. Also keeps the adder's names for those numbers.
    /// Returns the stored quote.
    func insert(id: QuoteID, text: String, addedBy: UserID, at: Date, sayer: QuotePerson, hearers: [QuotePerson]) async throws -> QuoteRecord
    /// The quote if `viewer` may see it.
    func quote(id: QuoteID, viewer: UserID) async throws -> QuoteView?
    /// What `viewer` may see, newest first, before `cursor`; only those said by `saidBy` (a phone
    /// number or a user id) when given.
    func feed(viewer: UserID, saidBy: String?, before cursor: Int64?, limit: Int) async throws -> [QuoteView]
    /// What `viewer` said, or heard, newest first.
    func quotes(of viewer: UserID, role: QuoteRole, before cursor: Int64?, limit: Int) async throws -> [QuoteView]
    /// What `viewer` may see whose text holds `text` (case-insensitive), newest first.
    func search(viewer: UserID, text: String, before cursor: Int64?, limit: Int) async throws -> [QuoteView]
    /// Adds or replaces names in `owner`'s address book.
    func saveContacts(owner: UserID, _ contacts: [String: String]) async throws
    /// Links every quote naming `phoneNumber` to the account that just signed up with it, which
    /// may then see them. Returns how many quotes.
    func claim(phoneNumber: String, for user: UserID) async throws -> Int
}
