import NIOCore
import ParleySTUN

/// A remote UDP address as a small hashable value: the key of the relay's address table.
///
/// With one local socket the 5-tuple reduces to the remote address and port. Built from a
/// `SocketAddress` without allocating, and hashed as three integers.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 in the low 32 bits of `low` (and `high` 0), or IPv6 as two halves.
    var high: UInt64
    var low: UInt64
    public var port: UInt16
    var isIPv6: Bool

    public init(ipv4 address: UInt32, port: UInt16) {
        high = 0
        low = UInt64(address)
        self.port = port
        isIPv6 = false
    }

    public init(ipv6High high: UInt64, low: UInt64, port: UInt16) {
        self.high = high
        self.low = low
        self.port = port
        isIPv6 = true
    }

    /// Nil for Unix-domain addresses, which never reach a UDP socket.
    public init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            let raw = UInt32(bigEndian: v4.address.sin_addr.s_addr)
            self.init(ipv4: raw, port: UInt16(bigEndian: v4.address.sin_port))
        case .v6(let v6):
            var address6 = v6.address
            let (high, low) = withUnsafeBytes(of: &address6.sin6_addr) { bytes -> (UInt64, UInt64) in
                var high: UInt64 = 0
                var low: UInt64 = 0
                for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
                for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
                return (high, low)
            }
            self.init(ipv6High: high, low: low, port: UInt16(bigEndian: v6.address.sin6_port))
        case .unixDomainSocket:
            return nil
        }
    }

    /// The same address as XOR-MAPPED-ADDRESS carries it (RFC 8489 §14.2).
    public var transportAddress: STUNTransportAddress {
        STUNTransportAddress(address: isIPv6 ? .v6(high: high, low: low) : .v4(UInt32(truncatingIfNeeded: low)), port: port)
    }

    public var description: String { transportAddress.description }
}
