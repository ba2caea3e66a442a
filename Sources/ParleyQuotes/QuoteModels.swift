import Foundation
import ParleyCore

/// Someone a quote names: by phone number (E.164) and the name the adder typed, and the account
/// that number signed up with once it has.
public struct QuotePerson: Sendable, Equatable {
    public var phoneNumber: String
    public var userID: UserID?
    /// The name in the adder's address book.
    public var bookName: String

    public init(phoneNumber: String, userID: UserID? = nil, bookName: String) {
        self.phoneNumber = phoneNumber
        self.userID = userID
        self.bookName = bookName
    }
}

/// A quote as stored: said by one person, heard by one or more.
public struct QuoteRecord: Sendable, Equatable {
    public var id: QuoteID
    /// Its place in time: larger is newer. Cursors are made of it.
    public var seq: Int64
    public var text: String
    public var addedBy: UserID?
    public var createdAt: Date
    public var sayer: QuotePerson
    public var hearers: [QuotePerson]

    public init(id: QuoteID, seq: Int64, text: String, addedBy: UserID?, createdAt: Date, sayer: QuotePerson, hearers: [QuotePerson]) {
        self.id = id
        self.seq = seq
        self.text = text
        self.addedBy = addedBy
        self.createdAt = createdAt
        self.sayer = sayer
        self.hearers = hearers
    }
}

/// A quote as one viewer sees it: each person who has not joined under the name that viewer
/// knows them by (their own address book, else the adder's).
public struct QuoteView: Sendable, Equatable {
    public var quote: QuoteRecord
    /// By phone number: the viewer's own name for someone not yet on Parley.
    public var names: [String: String]

    /// The name `viewer` sees for someone not yet joined (joined people show their chosen name,
    /// which the edge reads from Accounts).
    public func bookName(of person: QuotePerson) -> String { names[person.phoneNumber] ?? person.bookName }
}

/// A page of quotes, newest first, and where the next page starts (nil: no more).
public struct QuotePage: Sendable {
    public var quotes: [QuoteView]
    public var nextCursor: String?
}

/// Which of my profile's tabs.
public enum QuoteRole: String, Sendable {
    case said, heard
}

/// Someone named in a new quote, as the adder's app sends them.
public struct NamedNumber: Sendable, Equatable {
    public var phoneNumber: String
    public var name: String

    public init(phoneNumber: String, name: String) {
        self.phoneNumber = phoneNumber
        self.name = name
    }
}
