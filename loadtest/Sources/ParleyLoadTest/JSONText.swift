/// Writes the JSON text of a flat object of strings (RFC 8259 §7 escaping), for commands sent
/// thousands of times a second without building a `[String: Any]` for `JSONSerialization`.
struct JSONText {
    private var text = "{"

    init(capacity: Int = 128) {
        text.reserveCapacity(capacity)
    }

    /// `{"k1":"v1","k2":"v2",…}` in the order given.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        var writer = JSONText()
        for (key, value) in members { writer.add(key, value) }
        return writer.finish()
    }

    /// Adds the member `"key":"value"`.
    mutating func add(_ key: String, _ value: String) {
        if text.utf8.count > 1 { text += "," }
        Self.appendString(key, to: &text)
        text += ":"
        Self.appendString(value, to: &text)
    }

    consuming func finish() -> String {
        text += "}"
        return text
    }

    /// Appends `value` as a quoted JSON string: `"` and `\` escaped, control characters as
    /// `\n`, `\t`… or `\u00XX`; everything else as it is.
    static func appendString(_ value: String, to text: inout String) {
        text += "\""
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            text += value
        } else {
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case "\u{08}": text += "\\b"
                case "\u{0C}": text += "\\f"
                case "\u{00}"..."\u{1F}":
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
        }
        text += "\""
    }
}
