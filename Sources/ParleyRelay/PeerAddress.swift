import NIOCore
import ParleySTUN
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A remote transport address as a small hashable value: the key of the relay's address table.
///
/// With one local UDP socket and one TCP listening port the 5-tuple reduces to the transport,
/// the remote address and the port: a TCP connection (RFC 6544) is one more candidate address of
/// a leg, told apart from a UDP peer on the same address and port by ``isTCP``. Built from a
/// `SocketAddress` without allocating, and hashed as a few integers.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// IPv4 in the low 32 bits of `low` (and `high` 0), or IPv6 as two halves.
    var high: UInt64
    var low: UInt64
    public var port: UInt16
    var isIPv6: Bool
    /// The peer is the far end of a TCP connection to the relay's TCP port (framed, RFC 4571).
    public internal(set) var isTCP = false

    public init(ipv4 address: UInt32, port: UInt16) {
        high = 0
        low = UInt64(address)
        self.port = port
        isIPv6 = false
    }

    /// An IPv4-mapped address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2), as a dual-stack socket
    /// reports IPv4 peers, becomes the IPv4 address: one peer has one key and one
    /// XOR-MAPPED-ADDRESS whichever socket it reached.
    public init(ipv6High high: UInt64, low: UInt64, port: UInt16) {
        let mapped = high == 0 && low >> 32 == 0xFFFF
        self.high = high
        self.low = mapped ? low & 0xFFFF_FFFF : low
        self.port = port
        isIPv6 = !mapped
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

    /// The same address reached over TCP (or UDP).
    public func over(tcp: Bool) -> PeerAddress {
        var address = self
        address.isTCP = tcp
        return address
    }

    public var description: String { isTCP ? "tcp/" + transportAddress.description : transportAddress.description }
}

extension PeerAddress {
    /// The address the kernel filled in for a received datagram; nil for other families.
    @inline(__always)
    init?(storage: UnsafePointer<sockaddr_storage>) {
        let raw = UnsafeRawPointer(storage)
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            let address = raw.load(as: sockaddr_in.self)
            self.init(ipv4: UInt32(bigEndian: address.sin_addr.s_addr), port: UInt16(bigEndian: address.sin_port))
        case AF_INET6:
            let address = raw.load(as: sockaddr_in6.self)
            var (high, low): (UInt64, UInt64) = (0, 0)
            withUnsafeBytes(of: address.sin6_addr) { bytes in
                high = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                low = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            self.init(ipv6High: high, low: low, port: UInt16(bigEndian: address.sin6_port))
        default:
            return nil
        }
    }

    /// Writes the address as a `sockaddr_in` or `sockaddr_in6` for `sendmmsg`; an IPv4 address
    /// on an IPv6 (dual-stack) socket is written IPv4-mapped. False for an IPv6 address on an
    /// IPv4 socket (it cannot have come from that socket).
    @inline(__always)
    func write(to storage: UnsafeMutablePointer<sockaddr_storage>, asIPv6: Bool, length: inout socklen_t) -> Bool {
        guard asIPv6 || !isIPv6 else { return false }
        let raw = UnsafeMutableRawPointer(storage)
        if asIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            let (high, low) = isIPv6 ? (high, low) : (0, 0xFFFF_0000_0000 | low)
            withUnsafeMutableBytes(of: &address.sin6_addr) { bytes in
                bytes.storeBytes(of: high.bigEndian, toByteOffset: 0, as: UInt64.self)
                bytes.storeBytes(of: low.bigEndian, toByteOffset: 8, as: UInt64.self)
            }
            raw.storeBytes(of: address, as: sockaddr_in6.self)
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = UInt32(truncatingIfNeeded: low).bigEndian
            raw.storeBytes(of: address, as: sockaddr_in.self)
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        }
        return true
    }
}
