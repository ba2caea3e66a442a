/// A table from the header extension ids a packet arrived with to the ids the receiving leg
/// negotiated (`a=extmap`, RFC 8285 §5), used to rewrite packets in place.
///
/// Built once per pair of legs; lookups never allocate. An id with no entry is dropped:
/// its element is overwritten with zero bytes, which RFC 8285 §4.2/§4.3 defines as padding,
/// so the packet keeps its size and stays valid.
public struct RTPHeaderExtensionIDMap: Sendable, Hashable {
    /// target[id] = new id, 0 = drop.
    private var targets: [UInt8]

    /// A map that drops every element.
    public init() {
        targets = Array(repeating: 0, count: 256)
    }

    /// A map from incoming id to outgoing id; unlisted ids are dropped.
    public init(_ mapping: [UInt8: UInt8]) {
        self.init()
        for (from, to) in mapping { targets[Int(from)] = to }
    }

    /// Maps `from` to `to`, or drops `from` when `to` is nil or 0.
    public subscript(from: UInt8) -> UInt8? {
        get { targets[Int(from)] == 0 ? nil : targets[Int(from)] }
        set { targets[Int(from)] = newValue ?? 0 }
    }

    @inline(__always)
    func target(of id: UInt8) -> UInt8 {
        targets.withUnsafeBufferPointer { $0[Int(id)] }
    }
}

extension RTPHeader {
    /// Rewrites every extension element's id through `map`, in place (RFC 8285 §4).
    ///
    /// Elements whose id maps to nothing — or, in the one-byte form, to an id above 14 — are
    /// zeroed into padding. Returns false, leaving the buffer untouched, when the extension is
    /// malformed or uses no RFC 8285 form.
    @discardableResult
    public func rewriteExtensionIDs(in buffer: UnsafeMutableRawBufferPointer, using map: RTPHeaderExtensionIDMap) -> Bool {
        let bytes = UnsafeRawBufferPointer(buffer)
        guard let form = extensionForm, extensionIsWellFormed(in: bytes) else { return false }
        var iterator = RTPHeaderExtensionIterator(bytes, header: self)
        while let element = iterator.next() {
            let target = map.target(of: element.id)
            switch form {
            case .oneByte:
                if target == 0 || target > 14 {
                    for index in element.offset..<element.valueRange.upperBound { buffer[index] = 0 }
                } else {
                    buffer[element.offset] = target << 4 | (buffer[element.offset] & 0x0F)
                }
            case .twoByte:
                if target == 0 {
                    for index in element.offset..<element.valueRange.upperBound { buffer[index] = 0 }
                } else {
                    buffer[element.offset] = target
                }
            }
        }
        return true
    }

    /// Rewrites extension ids in place in an array holding the packet.
    @discardableResult
    public func rewriteExtensionIDs(in packet: inout [UInt8], using map: RTPHeaderExtensionIDMap) -> Bool {
        packet.withUnsafeMutableBytes { rewriteExtensionIDs(in: $0, using: map) }
    }
}
