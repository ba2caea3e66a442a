/// The 96-bit transaction id of a STUN message (RFC 8489 §5, §6).
///
/// Stored as three words so the value is trivially copyable and never allocates.
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    @usableFromInline var w0: UInt32
    @usableFromInline var w1: UInt32
    @usableFromInline var w2: UInt32

    /// Builds an id from its three big-endian 32-bit words.
    public init(_ w0: UInt32, _ w1: UInt32, _ w2: UInt32) {
        self.w0 = w0
        self.w1 = w1
        self.w2 = w2
    }

    /// Builds an id from exactly 12 bytes; nil for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 12 else { return nil }
        let a = Array(bytes)
        self.init(
            UInt32(a[0]) << 24 | UInt32(a[1]) << 16 | UInt32(a[2]) << 8 | UInt32(a[3]),
            UInt32(a[4]) << 24 | UInt32(a[5]) << 16 | UInt32(a[6]) << 8 | UInt32(a[7]),
            UInt32(a[8]) << 24 | UInt32(a[9]) << 16 | UInt32(a[10]) << 8 | UInt32(a[11]))
    }

    /// A fresh id from `generator`; RFC 8489 §6 asks for it to be uniformly random.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> STUNTransactionID {
        STUNTransactionID(generator.next(), generator.next(), generator.next())
    }

    /// A fresh id from the system's secure generator.
    public static func random() -> STUNTransactionID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The 12 bytes in wire order.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12)
        append(to: &out)
        return out
    }

    func append(to out: inout [UInt8]) {
        out.appendBE32(w0)
        out.appendBE32(w1)
        out.appendBE32(w2)
    }

    public var description: String {
        let hex = bytes.map { byte -> String in
            let s = String(byte, radix: 16)
            return byte < 16 ? "0" + s : s
        }
        return hex.joined()
    }
}
