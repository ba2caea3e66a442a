import Foundation

/// Pure rules for account data: no storage, no clock of their own.
public enum AccountRules {
    public static let minimumAge = 14
    public static let passwordLength = 8...128
    public static let maxNameLength = 64
    public static let maxStatusLength = 140
    public static let maxEmailLength = 254
    public static let minimumQueryLength = 2

    /// Trims and lowercases an address so that `Ann@Example.com ` and `ann@example.com` are one account.
    public static func normalizeEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// A deliberately plain check: one `@`, a non-empty local part, a dotted domain of sane
    /// characters, no spaces. The verification mail is the real test of an address.
    public static func isValidEmail(_ email: String) -> Bool {
        guard email.utf8.count <= maxEmailLength, !email.contains(where: \.isWhitespace) else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.count <= 64 else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" }
        }
    }

    public static func isAcceptablePassword(_ password: String) -> Bool {
        passwordLength.contains(password.count)
    }

    /// Trimmed name, or nil when empty or too long.
    public static func cleanName(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength else { return nil }
        return trimmed
    }

    public static func cleanStatus(_ status: String) -> String? {
        let trimmed = status.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.count <= maxStatusLength ? trimmed : nil
    }

    /// A calendar date written `YYYY-MM-DD`.
    public struct CalendarDate: Sendable, Equatable, Comparable {
        public let year: Int, month: Int, day: Int

        public init?(_ text: String) {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                  let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
                  year >= 1900, (1...12).contains(month), (1...CalendarDate.days(in: month, of: year)).contains(day)
            else { return nil }
            self.year = year
            self.month = month
            self.day = day
        }

        public init(_ date: Date) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            year = parts.year!
            month = parts.month!
            day = parts.day!
        }

        static func days(in month: Int, of year: Int) -> Int {
            switch month {
            case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
            case 4, 6, 9, 11: 30
            default: 31
            }
        }

        public static func < (a: CalendarDate, b: CalendarDate) -> Bool {
            (a.year, a.month, a.day) < (b.year, b.month, b.day)
        }
    }

    /// Whole years from `birth` to `today`: the birthday counts on the day itself
    /// (someone born on 29 February comes of age on 1 March in common years).
    public static func age(born birth: CalendarDate, on today: CalendarDate) -> Int {
        var years = today.year - birth.year
        if (today.month, today.day) < (birth.month, birth.day) { years -= 1 }
        return years
    }
}
