/// An IPv4 or IPv6 address as carried in (XOR-)MAPPED-ADDRESS (RFC 8489 §14.1, §14.2).
public enum STUNIPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first (192.0.2.1 is 0xC000_0201).
    case v4(UInt32)
    /// An IPv6 address as two big-endian halves.
    case v6(high: UInt64, low: UInt64)

    /// Builds an address from 4 or 16 bytes in network order; nil for any other count.
    public init?(bytes: some Collection<UInt8>) {
        let a = Array(bytes)
        switch a.count {
        case 4:
            self = .v4(a.reduce(0) { $0 << 8 | UInt32($1) })
        case 16:
            let high = a[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = a[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self = .v6(high: high, low: low)
        default:
            return nil
        }
    }

    /// Parses dotted-quad IPv4 or RFC 4291 §2.2 IPv6 text (with `::`, without zone ids or an
    /// embedded IPv4 tail); nil for anything else.
    public init?(_ text: String) {
        if text.contains(":") {
            guard let value = Self.parseIPv6(text) else { return nil }
            self = value
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt32 = 0
            for part in parts {
                guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                      let octet = UInt8(part) else { return nil }
                value = value << 8 | UInt32(octet)
            }
            self = .v4(value)
        }
    }

    private static func parseIPv6(_ text: String) -> STUNIPAddress? {
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for group in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(group.count), let value = UInt16(group, radix: 16) else { return nil }
                out.append(value)
            }
            return out
        }
        let halves = text.split(separator: "::", maxSplits: 2, omittingEmptySubsequences: false)
        var words: [UInt16]
        switch halves.count {
        case 1:
            guard let all = groups(halves[0]), all.count == 8 else { return nil }
            words = all
        case 2:
            guard let head = groups(halves[0]), let tail = groups(halves[1]),
                  head.count + tail.count <= 7 else { return nil }
            words = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
        let high = words[0..<4].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        let low = words[4..<8].reduce(UInt64(0)) { $0 << 16 | UInt64($1) }
        return .v6(high: high, low: low)
    }

    /// The address bytes in network order (4 or 16 of them).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        switch self {
        case .v4(let value):
            out.appendBE32(value)
        case .v6(let high, let low):
            out.appendBE64(high)
            out.appendBE64(low)
        }
        return out
    }

    /// Dotted quad, or RFC 5952 IPv6 text (lower case, longest zero run compressed).
    public var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        case .v6(let high, let low):
            var words: [UInt16] = []
            for shift in stride(from: 48, through: 0, by: -16) { words.append(UInt16(truncatingIfNeeded: high >> UInt64(shift))) }
            for shift in stride(from: 48, through: 0, by: -16) { words.append(UInt16(truncatingIfNeeded: low >> UInt64(shift))) }
            var bestStart = -1, bestLength = 0, runStart = -1
            for index in 0...8 {
                if index < 8, words[index] == 0 {
                    if runStart < 0 { runStart = index }
                } else if runStart >= 0 {
                    if index - runStart > bestLength, index - runStart >= 2 {
                        bestStart = runStart
                        bestLength = index - runStart
                    }
                    runStart = -1
                }
            }
            func hex(_ slice: ArraySlice<UInt16>) -> String {
                slice.map { String($0, radix: 16) }.joined(separator: ":")
            }
            if bestStart < 0 { return hex(words[0..<8]) }
            return hex(words[0..<bestStart]) + "::" + hex(words[(bestStart + bestLength)..<8])
        }
    }
}

/// An IP address and UDP port, the value of (XOR-)MAPPED-ADDRESS.
public struct STUNTransportAddress: Sendable, Hashable, CustomStringConvertible {
    public var address: STUNIPAddress
    public var port: UInt16

    public init(address: STUNIPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    public var description: String {
        switch address {
        case .v4: return "\(address):\(port)"
        case .v6: return "[\(address)]:\(port)"
        }
    }
}

/// XOR-MAPPED-ADDRESS coding (RFC 8489 §14.2): the port is XORed with the top 16 bits of the
/// magic cookie, an IPv4 address with the cookie, an IPv6 address with cookie ‖ transaction id.
enum XORMappedAddressCoding {
    static let familyIPv4: UInt8 = 0x01
    static let familyIPv6: UInt8 = 0x02

    /// Decodes an attribute value at `range` in `bytes`; nil when malformed.
    static func decode(_ bytes: UnsafeRawBufferPointer, range: Range<Int>,
                       transactionID: STUNTransactionID) -> STUNTransportAddress? {
        guard range.count >= 4 else { return nil }
        let base = range.lowerBound
        let family = bytes[base + 1]
        let port = bytes.readBE16(at: base + 2) ^ UInt16(STUNHeader.magicCookie >> 16)
        switch family {
        case familyIPv4:
            guard range.count == 8 else { return nil }
            let address = bytes.readBE32(at: base + 4) ^ STUNHeader.magicCookie
            return STUNTransportAddress(address: .v4(address), port: port)
        case familyIPv6:
            guard range.count == 20 else { return nil }
            let mask = xorMask(transactionID)
            let high = bytes.readBE64(at: base + 4) ^ mask.high
            let low = bytes.readBE64(at: base + 12) ^ mask.low
            return STUNTransportAddress(address: .v6(high: high, low: low), port: port)
        default:
            return nil
        }
    }

    /// Encodes `address` as an attribute value (without the TLV header).
    static func encode(_ address: STUNTransportAddress, transactionID: STUNTransactionID) -> [UInt8] {
        var value: [UInt8] = [0]
        let xport = address.port ^ UInt16(STUNHeader.magicCookie >> 16)
        switch address.address {
        case .v4(let ip):
            value.append(familyIPv4)
            value.appendBE16(xport)
            value.appendBE32(ip ^ STUNHeader.magicCookie)
        case .v6(let high, let low):
            let mask = xorMask(transactionID)
            value.append(familyIPv6)
            value.appendBE16(xport)
            value.appendBE64(high ^ mask.high)
            value.appendBE64(low ^ mask.low)
        }
        return value
    }

    private static func xorMask(_ id: STUNTransactionID) -> (high: UInt64, low: UInt64) {
        (UInt64(STUNHeader.magicCookie) << 32 | UInt64(id.w0), UInt64(id.w1) << 32 | UInt64(id.w2))
    }
}
