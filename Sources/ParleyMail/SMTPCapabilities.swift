/// The service extensions a server lists in its EHLO reply (RFC 5321 §4.1.1.1): every line after
/// the first is `KEYWORD [params]`.
struct SMTPCapabilities: Sendable, Hashable {
    /// Upper-cased keyword → its parameters (upper-cased too).
    var extensions: [String: [String]] = [:]

    /// No extensions: what a HELO-only server offers.
    init() {}

    init(ehloReply: SMTPReply) {
        for line in ehloReply.lines.dropFirst() {
            let words = line.uppercased().split(separator: " ").map(String.init)
            guard var keyword = words.first else { continue }
            var parameters = Array(words.dropFirst())
            // Some old servers also send the pre-standard form "AUTH=LOGIN PLAIN".
            if let equals = keyword.firstIndex(of: "=") {
                parameters.insert(String(keyword[keyword.index(after: equals)...]), at: 0)
                keyword = String(keyword[..<equals])
            }
            extensions[keyword, default: []].append(contentsOf: parameters.filter { !$0.isEmpty })
        }
    }

    /// RFC 3207.
    var supportsStartTLS: Bool { extensions["STARTTLS"] != nil }

    /// RFC 4954 mechanisms offered, e.g. `["PLAIN", "LOGIN"]`.
    var authMechanisms: [String] { extensions["AUTH"] ?? [] }
}
