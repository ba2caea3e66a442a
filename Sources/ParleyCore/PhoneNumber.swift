import Foundation

/// A telephone number in E.164 form (`+14155552671`): a `+`, a country calling code and the
/// national number, at most 15 digits in all (ITU-T E.164 §6.1). Two ways of writing one number
/// — `+44 20 7946 0958`, `0044 (0)20 7946-0958`, `020 7946 0958` read in the UK — give equal
/// values, so an account's number and the numbers quotes name can be compared as strings.
///
/// Deliberately small: it checks the country calling code against ITU's list and the length
/// bounds, not each country's numbering plan (the SMS code is the real test of a number).
public struct PhoneNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// `+` and digits.
    public let e164: String

    public var description: String { e164 }

    /// The country calling code (`"1"`, `"44"`, `"358"`).
    public var countryCode: String { String(e164.dropFirst().prefix(Self.countryCodeLength(of: Substring(e164.dropFirst())) ?? 0)) }

    /// Reads a number as a person types it. Spaces, dots, dashes, slashes and brackets are
    /// ignored, and so is a bracketed trunk zero (`+44 (0)20…`). `+` or the international prefix
    /// `00` starts an international number; anything else is a national number of
    /// `defaultCountryCode` (its trunk prefix dropped: `0` in most countries, `1` in NANP, `8` in
    /// Russia and Kazakhstan). Nil when it is no number.
    public init?(_ text: String, defaultCountryCode: String? = nil) {
        var raw = text.trimmingCharacters(in: .whitespaces)
        guard !raw.isEmpty, raw.utf8.count <= 40 else { return nil }
        raw = raw.replacingOccurrences(of: "(0)", with: "")
        var digits = ""
        var international = false
        for (index, character) in raw.enumerated() {
            switch character {
            case "+" where index == 0: international = true
            case "0"..."9": digits.append(character)
            case " ", "-", ".", "(", ")", "/", "\u{00A0}": continue
            default:
                // Full-width and other Unicode digits, letters (vanity numbers), extensions: refused.
                return nil
            }
        }
        if !international, digits.hasPrefix("00") {
            international = true
            digits.removeFirst(2)
        }
        if !international {
            guard let country = defaultCountryCode, Self.callingCodes.contains(country) else { return nil }
            let trunk = Self.trunkPrefix(country)
            if let trunk, digits.hasPrefix(trunk), digits.count > 7 { digits.removeFirst(trunk.count) }
            digits = country + digits
        }
        guard let codeLength = Self.countryCodeLength(of: Substring(digits)) else { return nil }
        let national = digits.dropFirst(codeLength)
        // E.164 allows 15 digits in all; no country's numbers are shorter than 4 national digits
        // (Saint Helena's), and a national number never starts with its trunk zero once written
        // internationally, except in Italy, whose fixed lines keep it (+39 06…).
        guard digits.count <= 15, national.count >= 4 else { return nil }
        if national.hasPrefix("0") && digits.prefix(codeLength) != "39" { return nil }
        e164 = "+" + digits
    }

    public static func < (a: PhoneNumber, b: PhoneNumber) -> Bool { a.e164 < b.e164 }

    /// How many leading digits are the country calling code, or nil if they are none assigned.
    /// Codes are prefix-free, so at most one of the 1-, 2- or 3-digit readings is assigned.
    static func countryCodeLength(of digits: Substring) -> Int? {
        for length in 1...3 where digits.count > length {
            if callingCodes.contains(String(digits.prefix(length))) { return length }
        }
        return nil
    }

    static func trunkPrefix(_ country: String) -> String? {
        switch country {
        case "1": "1"
        case "7": "8"
        // Countries with no trunk prefix: a leading zero is part of the number (Italy, Spain,
        // Portugal, Greece, Norway, Denmark, Poland, …) or not used (the others here).
        case "39", "34", "351", "30", "47", "45", "48", "352", "354", "356", "357", "371", "372", "376", "378", "420", "421",
             "298", "299", "350", "852", "853", "965", "966", "968", "973", "974", "65": nil
        default: "0"
        }
    }

    /// Assigned country calling codes (ITU-T E.164 assignment list), global services included.
    static let callingCodes: Set<String> = Set("""
        1 7 20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86
        90 91 92 93 94 95 98 211 212 213 216 218 220 221 222 223 224 225 226 227 228 229 230 231 232 233 234 235 236 237
        238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255 256 257 258 260 261 262 263 264 265 266
        267 268 269 290 291 297 298 299 350 351 352 353 354 355 356 357 358 359 370 371 372 373 374 375 376 377 378 379
        380 381 382 383 385 386 387 389 420 421 423 500 501 502 503 504 505 506 507 508 509 590 591 592 593 594 595 596
        597 598 599 670 672 673 674 675 676 677 678 679 680 681 682 683 685 686 687 688 689 690 691 692 800 808 850 852
        853 855 856 870 878 880 881 882 883 886 888 960 961 962 963 964 965 966 967 968 970 971 972 973 974 975 976 977
        979 992 993 994 995 996 998
        """.split(whereSeparator: \.isWhitespace).map(String.init))
}
