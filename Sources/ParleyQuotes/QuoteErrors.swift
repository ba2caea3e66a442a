import ParleyCore

/// The stable codes Quotes answers with.
public enum QuoteErrors {
    public static let notFound = ParleyError(.notFound, code: "quote_not_found", "No such quote")
    public static func invalidText(_ limit: Int) -> ParleyError {
        .rule("invalid_text", "A quote is 1 to \(limit) characters")
    }
    public static let invalidPhoneNumber = ParleyError.rule(
        "invalid_phone_number", "That is not a phone number: write it with its country code, like +14155552671")
    public static let invalidName = ParleyError.rule("invalid_name", "A name is 1 to \(QuoteRules.maxNameLength) characters")
    public static let noHearers = ParleyError.rule(
        "invalid_hearers", "A quote is heard by 1 to \(QuoteRules.maxHearers) people, each once, and not by the one who said it")
    public static let tooManyContacts = ParleyError.rule("too_many_contacts", "At most \(QuoteRules.maxContactsPerCall) contacts at a time")
    /// The same code: the book is full rather than the call too large.
    public static let addressBookFull = ParleyError.rule(
        "too_many_contacts", "An address book holds at most \(QuoteRules.maxContacts) numbers")
    public static let invalidCursor = ParleyError.badRequest("The cursor is not one this server gave", code: "invalid_cursor")
}

/// Pure rules for quotes.
public enum QuoteRules {
    public static let maxNameLength = 64
    public static let maxHearers = 50
    public static let maxContactsPerCall = 1000
    /// Numbers one user's address book may hold in all (each is a row; calls add to it).
    public static let maxContacts = 10_000
    /// Quotes one user may add per hour: each names up to 51 people, and shows in their feeds.
    public static let quotesPerHour = 100
    public static let maxQueryLength = 100
}
