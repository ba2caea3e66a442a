/// Whether a JSON text holds the NUL character (the escape `\u0000`; a raw NUL byte is no JSON at
/// all). No PostgreSQL text can hold it, and C strings end at it: a client's text with one is
/// refused as it comes in, the same on either engine, rather than failing at the database.
public enum NulEscape {
    public static func isIn(_ bytes: [UInt8]) -> Bool {
        var index = 0
        let end = bytes.count
        while index < end {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            // An escape: `\u0000` is the NUL; any other (`\\` included) is stepped over whole.
            if index + 5 < end, bytes[index + 1] == UInt8(ascii: "u"), bytes[index + 2] == UInt8(ascii: "0"),
               bytes[index + 3] == UInt8(ascii: "0"), bytes[index + 4] == UInt8(ascii: "0"), bytes[index + 5] == UInt8(ascii: "0") {
                return true
            }
            index += 2
        }
        return false
    }

    /// The error a body or frame with one gets.
    public static let refused = "Text may not hold the NUL character (\\u0000)"
}
