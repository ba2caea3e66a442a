import Foundation
import ParleyMediaClient

/// The link a calls run puts between its media clients and the relay: `tc netem` arguments
/// (`delay 40ms 10ms loss 2%`) or a named profile, checked here so a typo fails before anything
/// starts. The same profile drives the kernel's netem on the namespace's veth pair
/// (scripts/loadtest.sh) or, where the kernel has no `sch_netem`, ``LinkImpairment`` on each
/// media client's socket.
///
/// Understood: `delay TIME [JITTER [CORRELATION%]]`, `loss [random] PERCENT% [CORRELATION%]`,
/// `duplicate PERCENT% [CORRELATION%]`, `reorder PERCENT% [CORRELATION%]`, `rate RATE`.
public struct NetemProfile: Sendable, Equatable, Codable {
    /// What a mobile or home link looks like, roughly: one-way delay and jitter, random loss.
    public static let named: [(name: String, arguments: String)] = [
        ("wifi", "delay 10ms 5ms loss 0.5%"),
        ("lte", "delay 40ms 10ms loss 1%"),
        ("3g", "delay 100ms 30ms loss 2%"),
        ("bad", "delay 150ms 50ms loss 5% reorder 2%"),
    ]

    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }

    /// The profile's name, when one was given.
    public var name: String?
    /// The arguments for `tc qdisc add … netem`, as given or as the name stands for.
    public var arguments: String
    public var delayMs = 0.0
    public var jitterMs = 0.0
    public var lossPercent = 0.0
    public var duplicatePercent = 0.0
    public var reorderPercent = 0.0
    /// `rate`, as written (the kernel only).
    public var rate: String?
    /// Correlations given (the kernel only).
    public var hasCorrelation = false

    public init(_ text: String) throws(Invalid) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let profile = Self.named.first(where: { $0.name == trimmed.lowercased() }) {
            name = profile.name
            arguments = profile.arguments
        } else {
            arguments = trimmed
        }
        try parse(arguments.split(separator: " ").map(String.init))
    }

    /// What ``LinkImpairment`` makes of it (rate and correlations aside: see ``userSpaceCaveats``).
    public var impairment: LinkImpairment {
        LinkImpairment(delay: .microseconds(Int64((delayMs * 1_000).rounded())), jitter: .microseconds(Int64((jitterMs * 1_000).rounded())),
                       loss: lossPercent / 100, duplicate: duplicatePercent / 100, reorder: reorderPercent / 100)
    }

    /// What the user-space link leaves out of this profile.
    public var userSpaceCaveats: [String] {
        (rate.map { ["rate \($0) (not modelled)"] } ?? []) + (hasCorrelation ? ["correlations (not modelled)"] : [])
    }

    private mutating func parse(_ words: [String]) throws(Invalid) {
        guard !words.isEmpty else { throw Invalid(description: "an empty netem profile (named ones: \(Self.named.map(\.name).joined(separator: ", ")))") }
        var index = 0
        func next() -> String? { index < words.count ? words[index] : nil }
        func percent(_ word: String?, of what: String) throws(Invalid) -> Double {
            guard let word, let value = Double(word.hasSuffix("%") ? String(word.dropLast()) : word), (0...100).contains(value) else {
                throw Invalid(description: "\(what) wants a percentage, got \(word ?? "nothing")")
            }
            return value
        }
        func optionalCorrelation() throws(Invalid) {
            if let word = next(), word.hasSuffix("%") {
                _ = try percent(word, of: "a correlation")
                hasCorrelation = true
                index += 1
            }
        }
        while let keyword = next() {
            index += 1
            switch keyword {
            case "delay":
                guard let delay = next().flatMap(Self.milliseconds) else { throw Invalid(description: "delay wants a time such as 40ms") }
                delayMs = delay
                index += 1
                if let jitter = next().flatMap(Self.milliseconds) {
                    jitterMs = jitter
                    index += 1
                    try optionalCorrelation()
                }
            case "loss":
                if next() == "random" { index += 1 }
                lossPercent = try percent(next(), of: "loss")
                index += 1
                try optionalCorrelation()
            case "duplicate":
                duplicatePercent = try percent(next(), of: "duplicate")
                index += 1
                try optionalCorrelation()
            case "reorder":
                reorderPercent = try percent(next(), of: "reorder")
                index += 1
                try optionalCorrelation()
            case "rate":
                guard let value = next(), value.first?.isNumber == true else { throw Invalid(description: "rate wants a rate such as 2mbit") }
                rate = value
                index += 1
            default:
                throw Invalid(description: "netem keyword \(keyword) is not one this harness knows (delay, loss, duplicate, reorder, rate; or a profile: \(Self.named.map(\.name).joined(separator: ", ")))")
            }
        }
        if reorderPercent > 0, delayMs == 0 { throw Invalid(description: "reorder needs a delay (netem sends the reordered packets at once, the rest delayed)") }
    }

    /// `40ms`, `1.5s`, `500us` in milliseconds.
    static func milliseconds(_ word: String) -> Double? {
        for (suffix, scale) in [("ms", 1.0), ("us", 0.001), ("s", 1_000.0)] where word.hasSuffix(suffix) {
            guard let value = Double(word.dropLast(suffix.count)), value >= 0 else { return nil }
            return value * scale
        }
        return nil
    }

    /// One line for the report: the arguments, and the name they came from.
    public var summary: String {
        (name.map { "\($0): " } ?? "") + arguments
    }
}

/// Who applies a calls run's ``NetemProfile``.
public enum NetemPlacement: String, Sendable, Codable, CaseIterable {
    /// `tc netem` on both ends of the veth pair between the clients' namespace and the server
    /// (scripts/loadtest.sh sets it up and says so).
    case kernel
    /// ``LinkImpairment`` on each media client's socket, both ways: where the kernel has no netem.
    case harness
}
