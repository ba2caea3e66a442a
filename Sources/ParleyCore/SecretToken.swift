import Crypto
import Foundation

/// Opaque bearer secrets (refresh, verification and reset tokens): 256 random bits, sent to the
/// client as base64url, stored only as their SHA-256 digest so a database leak reveals none.
public struct SecretToken: Sendable, Hashable {
    public let value: String

    public init(value: String) { self.value = value }

    /// A fresh token of 32 random bytes.
    public static func generate() -> SecretToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return SecretToken(value: Base64URL.encode(bytes))
    }

    /// Hex SHA-256 of the token's text: the form kept in storage.
    public var digest: String { SecretToken.digest(of: value) }

    public static func digest(of text: String) -> String {
        SHA256.hash(data: Array(text.utf8)).map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 0x0f)] }.joined()
    }
}

private let hexDigits = (0..<16).map { String($0, radix: 16) }

/// base64url without padding (RFC 4648 §5).
public enum Base64URL {
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Nil unless `text` is unpadded base64url: `+`, `/` and `=` are not part of that alphabet.
    public static func decode(_ text: String) -> [UInt8]? {
        guard text.utf8.allSatisfy({ isAlphabet($0) }) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    static func isAlphabet(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
