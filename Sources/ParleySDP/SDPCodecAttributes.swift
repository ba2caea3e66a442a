/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]` (RFC 8866 §6.6).
public struct SDPRTPMap: Sendable, Hashable {
    public var payloadType: UInt8
    /// As written, e.g. "opus", "VP8"; compare case-insensitively (RFC 4855 §3).
    public var encodingName: String
    public var clockRate: Int
    /// Audio channels, when given.
    public var channels: Int?

    public init(payloadType: UInt8, encodingName: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    /// Parses the attribute value; nil when it does not follow the grammar.
    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let pt = UInt8(parts[0]), pt < 128 else { return nil }
        let encoding = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        guard (2...3).contains(encoding.count), !encoding[0].isEmpty, let rate = Int(encoding[1]), rate > 0 else { return nil }
        var channels: Int?
        if encoding.count == 3 {
            guard let count = Int(encoding[2]), count > 0 else { return nil }
            channels = count
        }
        self.init(payloadType: pt, encodingName: String(encoding[0]), clockRate: rate, channels: channels)
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String {
        "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }
}

/// `a=fmtp:<format> <format specific parameters>` (RFC 8866 §6.15).
public struct SDPFormatParameters: Sendable, Hashable {
    public var payloadType: UInt8
    /// The parameters exactly as written, e.g. "minptime=10;useinbandfec=1".
    public var parameters: String

    public init(payloadType: UInt8, parameters: String) {
        self.payloadType = payloadType
        self.parameters = parameters
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard let first = parts.first, let pt = UInt8(first), pt < 128 else { return nil }
        self.init(payloadType: pt, parameters: parts.count == 2 ? String(parts[1]) : "")
    }

    /// The `key=value` pairs separated by ";" (RFC 7587 §6, RFC 7741 §6.1 style); a key
    /// without "=" maps to "".
    public var pairs: [(key: String, value: String)] {
        parameters.split(separator: ";").compactMap { item in
            let trimmed = item.trimmingSpaces
            guard !trimmed.isEmpty else { return nil }
            let kv = trimmed.split(separator: "=", maxSplits: 1)
            return (String(kv[0]), kv.count == 2 ? String(kv[1]) : "")
        }
    }

    /// The value of parameter `key`, if present.
    public subscript(key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String { "\(payloadType) \(parameters)" }
}

/// `a=rtcp-fb:<payload type or *> <type> [<parameter>]` (RFC 4585 §4.2), e.g. "96 nack pli".
public struct SDPRTCPFeedback: Sendable, Hashable {
    /// nil stands for "*", every payload type.
    public var payloadType: UInt8?
    /// "nack", "ccm", "goog-remb", "transport-cc", …
    public var type: String
    /// "pli" in "nack pli", "fir" in "ccm fir".
    public var parameter: String?

    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        if parts[0] == "*" {
            payloadType = nil
        } else {
            guard let pt = UInt8(parts[0]), pt < 128 else { return nil }
            payloadType = pt
        }
        type = String(parts[1])
        parameter = parts.count == 3 ? String(parts[2]) : nil
    }

    /// "nack", "nack pli", "ccm fir", … without the payload type.
    public var feedback: String { parameter.map { "\(type) \($0)" } ?? type }

    /// The attribute value as written after "a=<name>:".
    public var value: String { "\(payloadType.map(String.init) ?? "*") \(feedback)" }
}

/// `a=extmap:<id>[/<direction>] <URI> [<extension attributes>]` (RFC 8285 §5).
public struct SDPExtMap: Sendable, Hashable {
    /// 1–14 for one-byte headers, up to 255 with two-byte headers (RFC 8285 §5).
    public var id: UInt8
    public var direction: SDPDirection?
    public var uri: String
    public var extensionAttributes: String?

    public init(id: UInt8, uri: String, direction: SDPDirection? = nil, extensionAttributes: String? = nil) {
        self.id = id
        self.uri = uri
        self.direction = direction
        self.extensionAttributes = extensionAttributes
    }

    public init?(_ value: String) {
        let parts = value.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2 else { return nil }
        let idParts = parts[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = UInt8(idParts[0]), id >= 1 else { return nil }
        var direction: SDPDirection?
        if idParts.count == 2 {
            guard let parsed = SDPDirection(rawValue: String(idParts[1])) else { return nil }
            direction = parsed
        }
        self.init(id: id, uri: String(parts[1]), direction: direction,
                  extensionAttributes: parts.count == 3 ? String(parts[2]) : nil)
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String {
        var text = String(id)
        if let direction { text += "/\(direction.rawValue)" }
        text += " \(uri)"
        if let extensionAttributes { text += " \(extensionAttributes)" }
        return text
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var slice = self
        while slice.first == " " || slice.first == "\t" { slice.removeFirst() }
        while slice.last == " " || slice.last == "\t" { slice.removeLast() }
        return slice
    }
}
