/// Renders metric families in the Prometheus text exposition format, version 0.0.4: a `# HELP`
/// and a `# TYPE` line per family, then one line per sample, `\n` after every line.
/// Pure: families in, text out.
public enum PrometheusText {
    /// The `Content-Type` of a `/metrics` answer.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public static func render(_ families: [MetricFamily]) -> String {
        var text = ""
        for family in families {
            precondition(isValidMetricName(family.name), "invalid metric name \(family.name)")
            text += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.kind.rawValue)\n"
            for sample in family.samples {
                text += family.name
                if !sample.labels.isEmpty {
                    let pairs = sample.labels.map { label in
                        precondition(isValidLabelName(label.name), "invalid label name \(label.name)")
                        return "\(label.name)=\"\(escapeLabelValue(label.value))\""
                    }
                    text += "{" + pairs.joined(separator: ",") + "}"
                }
                text += " " + format(sample.value) + "\n"
            }
        }
        return text
    }

    /// Help text escapes only backslash and line feed.
    public static func escapeHelp(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// Label values also escape the double quote.
    public static func escapeLabelValue(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    public static func format(_ value: MetricValue) -> String {
        switch value {
        case .integer(let n): String(n)
        case .unsigned(let n): String(n)
        case .real(let x):
            if x.isNaN { "NaN" } else if x == .infinity { "+Inf" } else if x == -.infinity { "-Inf" } else { "\(x)" }
        }
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`
    public static func isValidMetricName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isNameStart(first) || first == UInt8(ascii: ":") else { return false }
        return name.utf8.allSatisfy { isNameStart($0) || isDigit($0) || $0 == UInt8(ascii: ":") }
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, and not starting with the reserved `__`.
    public static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isNameStart(first), !name.hasPrefix("__") else { return false }
        return name.utf8.allSatisfy { isNameStart($0) || isDigit($0) }
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
}
