import Foundation

/// A strict reader of the Prometheus text format 0.0.4, written from the format's description
/// (not from our renderer), so that tests can check what `/metrics` serves line by line.
struct Exposition {
    struct Family {
        var help: String?
        var type: String?
        var samples: [Sample] = []
    }

    struct Sample: Equatable {
        var labels: [String: String]
        var value: Double
    }

    enum ParseError: Error, CustomStringConvertible {
        case line(Int, String, String)
        var description: String {
            switch self { case .line(let n, let text, let why): "line \(n) \(text.debugDescription): \(why)" }
        }
    }

    var families: [String: Family] = [:]
    /// Family names in the order their `# HELP` / `# TYPE` appeared.
    var order: [String] = []

    subscript(name: String) -> Family? { families[name] }

    /// Every sample by the name it was written under (`x_bucket`, `x_sum` and `x_count` apart).
    var series: [String: [Sample]] = [:]

    /// The value of the one sample written as `name` whose labels are exactly `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        series[name]?.first { $0.labels == labels }?.value
    }

    /// The histogram family `name` is a sample of, if any.
    static func histogramFamily(of name: String, labels: [String: String], in families: [String: Family]) -> String? {
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            guard families[base]?.type == "histogram" else { continue }
            if suffix == "_bucket", labels["le"] == nil { return nil }
            return base
        }
        return nil
    }

    init(parsing text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw ParseError.line(0, "", "the last line must end with a line feed") }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        for (index, line) in lines.enumerated() {
            let number = index + 1
            func fail(_ why: String) -> ParseError { .line(number, String(line), why) }
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let rest = line.dropFirst(7)
                let name = String(rest.prefix { $0 != " " })
                guard Self.isMetricName(name) else { throw fail("bad metric name") }
                let tail = rest.dropFirst(name.count)
                guard tail.hasPrefix(" ") else { throw fail("missing text after the name") }
                let body = String(tail.dropFirst())
                if !order.contains(name) { order.append(name) }
                if line.hasPrefix("# HELP ") {
                    guard families[name]?.help == nil else { throw fail("second HELP") }
                    families[name, default: Family()].help = try Self.unescape(body, quotes: false) ?? { throw fail("bad escape") }()
                } else {
                    guard families[name]?.type == nil, families[name]?.samples.isEmpty ?? true else { throw fail("TYPE repeated or after samples") }
                    guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(body) else { throw fail("unknown type") }
                    families[name, default: Family()].type = body
                }
            } else if line.hasPrefix("#") || line.isEmpty {
                continue   // comments and blank lines are allowed
            } else {
                var scanner = Substring(line)
                let name = String(scanner.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
                guard Self.isMetricName(name) else { throw fail("bad metric name") }
                scanner = scanner.dropFirst(name.count)
                var labels: [String: String] = [:]
                if scanner.hasPrefix("{") {
                    scanner = scanner.dropFirst()
                    while !scanner.hasPrefix("}") {
                        let label = String(scanner.prefix { $0 != "=" })
                        guard Self.isLabelName(label) else { throw fail("bad label name \(label.debugDescription)") }
                        scanner = scanner.dropFirst(label.count)
                        guard scanner.hasPrefix("=\"") else { throw fail("label without =\"") }
                        scanner = scanner.dropFirst(2)
                        var raw = ""
                        var escaped = false
                        while let character = scanner.first {
                            scanner = scanner.dropFirst()
                            if escaped { raw.append("\\"); raw.append(character); escaped = false }
                            else if character == "\\" { escaped = true }
                            else if character == "\"" { break }
                            else { raw.append(character) }
                        }
                        guard let value = Self.unescape(raw, quotes: true) else { throw fail("bad escape in label value") }
                        guard labels.updateValue(value, forKey: label) == nil else { throw fail("repeated label") }
                        if scanner.hasPrefix(",") { scanner = scanner.dropFirst() }
                        else if !scanner.hasPrefix("}") { throw fail("expected , or }") }
                    }
                    scanner = scanner.dropFirst()
                }
                guard scanner.hasPrefix(" ") else { throw fail("no space before the value") }
                let fields = scanner.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
                guard (1...2).contains(fields.count), let value = Self.number(fields[0]) else { throw fail("bad value") }
                if fields.count == 2, Int64(fields[1]) == nil { throw fail("bad timestamp") }
                // A histogram's samples are its name with `_bucket` (with `le`), `_sum` and `_count`.
                let family = families[name]?.type != nil ? name : Self.histogramFamily(of: name, labels: labels, in: families)
                guard let family else { throw fail("sample before its TYPE") }
                guard !(series[name, default: []].contains { $0.labels == labels }) else { throw fail("duplicate sample") }
                families[family]!.samples.append(Sample(labels: labels, value: value))
                series[name, default: []].append(Sample(labels: labels, value: value))
            }
        }
    }

    static func isMetricName(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-zA-Z_:][a-zA-Z0-9_:]*/) != nil
    }

    static func isLabelName(_ name: String) -> Bool {
        name.wholeMatch(of: /[a-zA-Z_][a-zA-Z0-9_]*/) != nil
    }

    static func number(_ text: Substring) -> Double? {
        switch text {
        case "+Inf": .infinity
        case "-Inf": -.infinity
        case "NaN": .nan
        default: Double(text)
        }
    }

    /// `\\` and `\n` (and `\"` in label values); any other escape is an error.
    static func unescape(_ text: String, quotes: Bool) -> String? {
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "\\": out.append("\\")
                case "n": out.append("\n")
                case "\"" where quotes: out.append("\"")
                default: return nil
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return escaped ? nil : out
    }
}
