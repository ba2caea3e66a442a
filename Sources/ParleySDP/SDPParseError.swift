/// Why a session description was rejected: what was wrong, and on which line.
public struct SDPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Sendable, Hashable {
        /// No lines at all.
        case empty
        /// The first line is not `v=` (RFC 8866 §5: v= comes first).
        case missingVersion
        /// `v=` is not 0.
        case unsupportedVersion
        /// A line is not `<letter>=<value>` (RFC 8866 §5).
        case malformedLine
        /// `o=` is missing or not six fields (RFC 8866 §5.2).
        case malformedOrigin
        /// `s=` is missing (RFC 8866 §5.3).
        case missingSessionName
        /// `c=` is not three fields.
        case malformedConnection
        /// `t=` is not two numbers.
        case malformedTiming
        /// `m=` is not `<media> <port>[/<n>] <proto> <fmt> …` (RFC 8866 §5.14).
        case malformedMedia
        /// A known attribute whose value does not follow its grammar.
        case malformedAttribute(String)
        /// A line that may only appear once per section appears again.
        case duplicate(String)
    }

    public var problem: Problem
    /// 1-based line number, 0 when the problem is the description as a whole.
    public var line: Int
    /// The offending line's text (empty when `line` is 0).
    public var text: String

    public init(_ problem: Problem, line: Int, text: String) {
        self.problem = problem
        self.line = line
        self.text = text
    }

    public var description: String {
        let what: String
        switch problem {
        case .empty: what = "empty session description"
        case .missingVersion: what = "first line must be v=0"
        case .unsupportedVersion: what = "unsupported SDP version"
        case .malformedLine: what = "line is not <type>=<value>"
        case .malformedOrigin: what = "malformed or missing o= line"
        case .missingSessionName: what = "missing s= line"
        case .malformedConnection: what = "malformed c= line"
        case .malformedTiming: what = "malformed t= line"
        case .malformedMedia: what = "malformed m= line"
        case .malformedAttribute(let name): what = "malformed a=\(name)"
        case .duplicate(let name): what = "duplicate \(name)"
        }
        return line > 0 ? "SDP line \(line): \(what): \(text)" : "SDP: \(what)"
    }
}
