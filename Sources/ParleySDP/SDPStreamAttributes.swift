/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1), e.g. "376699517 cname:kIqm…".
public struct SDPSSRCAttribute: Sendable, Hashable {
    public var ssrc: UInt32
    public var attribute: String
    /// The attribute value as written after "a=<name>:".
    public var value: String?

    public init(ssrc: UInt32, attribute: String, value: String? = nil) {
        self.ssrc = ssrc
        self.attribute = attribute
        self.value = value
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let ssrc = UInt32(parts[0]) else { return nil }
        let attribute = parts[1].split(separator: ":", maxSplits: 1)
        guard let name = attribute.first, !name.isEmpty else { return nil }
        self.init(ssrc: ssrc, attribute: String(name), value: attribute.count == 2 ? String(attribute[1]) : nil)
    }

    /// The attribute value as written after "a=<name>:".
    public var valueText: String {
        "\(ssrc) \(attribute)" + (value.map { ":\($0)" } ?? "")
    }
}

/// `a=ssrc-group:<semantics> <ssrc> …` (RFC 5576 §4.2), e.g. "FID 3574137062 1852307589"
/// pairing a stream with its RTX repair stream (RFC 4588 §8).
public struct SDPSSRCGroup: Sendable, Hashable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        var ssrcs: [UInt32] = []
        for part in parts.dropFirst() {
            guard let ssrc = UInt32(part) else { return nil }
            ssrcs.append(ssrc)
        }
        self.init(semantics: String(parts[0]), ssrcs: ssrcs)
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String { ([semantics] + ssrcs.map(String.init)).joined(separator: " ") }
}

/// `a=group:<semantics> <mid> …` (RFC 5888 §5), e.g. "BUNDLE 0 1" (RFC 8843).
public struct SDPGroup: Sendable, Hashable {
    public var semantics: String
    public var mids: [String]

    public init(semantics: String, mids: [String]) {
        self.semantics = semantics
        self.mids = mids
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ")
        guard let first = parts.first else { return nil }
        self.init(semantics: String(first), mids: parts.dropFirst().map(String.init))
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String { ([semantics] + mids).joined(separator: " ") }
}

/// `a=msid:<stream id> [<track id>]` (RFC 8830 §2).
public struct SDPMediaStreamID: Sendable, Hashable {
    public var streamID: String
    public var trackID: String?

    public init(streamID: String, trackID: String? = nil) {
        self.streamID = streamID
        self.trackID = trackID
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ")
        guard (1...2).contains(parts.count) else { return nil }
        self.init(streamID: String(parts[0]), trackID: parts.count == 2 ? String(parts[1]) : nil)
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String { streamID + (trackID.map { " \($0)" } ?? "") }
}

/// The media direction attributes (RFC 8866 §6.7); sendrecv when none is given.
public enum SDPDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv
    case sendonly
    case recvonly
    case inactive

    /// The direction an answer takes to an offer with this one (RFC 3264 §6.1).
    public var reversed: SDPDirection {
        switch self {
        case .sendrecv: return .sendrecv
        case .sendonly: return .recvonly
        case .recvonly: return .sendonly
        case .inactive: return .inactive
        }
    }

    /// Whether the side using this direction sends media.
    public var sends: Bool { self == .sendrecv || self == .sendonly }
    /// Whether the side using this direction receives media.
    public var receives: Bool { self == .sendrecv || self == .recvonly }
}
