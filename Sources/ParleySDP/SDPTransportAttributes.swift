/// `a=fingerprint:<hash function> <hex pairs>` (RFC 8122 §5), the DTLS certificate's hash.
public struct SDPFingerprint: Sendable, Hashable {
    /// Lower-cased hash function name, e.g. "sha-256".
    public var algorithm: String
    /// Upper-case colon-separated hex, e.g. "07:88:C6:…".
    public var value: String

    public init(algorithm: String, value: String) {
        self.algorithm = algorithm.lowercased()
        self.value = value.uppercased()
    }

    public init?(_ text: String) {
        let parts = text.split(separator: " ")
        guard parts.count == 2 else { return nil }
        let hexPairs = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard !hexPairs.isEmpty,
              hexPairs.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        self.init(algorithm: String(parts[0]), value: String(parts[1]))
    }

    /// The digest bytes.
    public var bytes: [UInt8] {
        value.split(separator: ":").compactMap { UInt8($0, radix: 16) }
    }

    /// The attribute value as written after "a=<name>:".
    public var attributeValue: String { "\(algorithm) \(value)" }
}

/// `a=setup` (RFC 4145 §4, RFC 5763 §5): which side opens the DTLS connection.
public enum SDPSetupRole: String, Sendable, Hashable {
    case active
    case passive
    case actpass
    case holdconn
}

/// `a=candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …`
/// (RFC 8839 §5.1).
public struct SDPCandidate: Sendable, Hashable {
    public var foundation: String
    /// 1 for RTP (and RTCP when muxed).
    public var component: Int
    /// "udp" or "tcp", lower-cased.
    public var transport: String
    public var priority: UInt32
    /// An IP address, or an mDNS ".local" name.
    public var address: String
    public var port: Int
    /// "host", "srflx", "prflx" or "relay".
    public var type: String
    public var relatedAddress: String?
    public var relatedPort: Int?
    /// Everything after the fixed part: ("tcptype","active"), ("generation","0"), …
    public var extensions: [Extension]

    public struct Extension: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(foundation: String, component: Int, transport: String, priority: UInt32, address: String, port: Int,
                type: String, relatedAddress: String? = nil, relatedPort: Int? = nil, extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport.lowercased()
        self.priority = priority
        self.address = address
        self.port = port
        self.type = type
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    public init?(_ value: String) {
        let fields = value.split(separator: " ").map(String.init)
        guard fields.count >= 8, let component = Int(fields[1]), let priority = UInt32(fields[3]),
              let port = Int(fields[5]), (0...65535).contains(port), fields[6] == "typ" else { return nil }
        var relatedAddress: String?
        var relatedPort: Int?
        var extensions: [Extension] = []
        var index = 8
        while index + 1 < fields.count {
            switch fields[index] {
            case "raddr": relatedAddress = fields[index + 1]
            case "rport": relatedPort = Int(fields[index + 1])
            default: extensions.append(Extension(name: fields[index], value: fields[index + 1]))
            }
            index += 2
        }
        guard index == fields.count else { return nil }  // a name without a value
        self.init(foundation: fields[0], component: component, transport: fields[2], priority: priority,
                  address: fields[4], port: port, type: fields[7], relatedAddress: relatedAddress,
                  relatedPort: relatedPort, extensions: extensions)
    }

    /// The attribute value as written after "a=<name>:".
    public var value: String {
        var text = "\(foundation) \(component) \(transport) \(priority) \(address) \(port) typ \(type)"
        if let relatedAddress { text += " raddr \(relatedAddress)" }
        if let relatedPort { text += " rport \(relatedPort)" }
        for item in extensions { text += " \(item.name) \(item.value)" }
        return text
    }
}
