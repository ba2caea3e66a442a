import CParleyUDP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A media client's outgoing datagrams on its event loop: copied into fixed slots and written
/// to its UDP socket, all to one destination, with one `sendmmsg` per flush, as the relay writes its own
/// (``MediaLink`` sends this way while a call's media runs on the loop). Nothing allocates
/// after `init`: no buffer, address or promise per datagram, and no trip through a channel
/// pipeline.
///
/// Not thread-safe: used on the event loop only.
final class DatagramBatch {
    static let capacity = 64
    static let slotSize = 2_048

    private let arena: UnsafeMutableRawPointer
    private let headers: UnsafeMutablePointer<parley_mmsghdr>
    private let vectors: UnsafeMutablePointer<iovec>
    private let destination: UnsafeMutablePointer<sockaddr_storage>
    private(set) var count = 0
    /// Whether ``setDestination(_:length:)`` was given an address.
    private(set) var hasDestination = false

    init() {
        arena = .allocate(byteCount: Self.capacity * Self.slotSize, alignment: 16)
        headers = .allocate(capacity: Self.capacity)
        vectors = .allocate(capacity: Self.capacity)
        destination = .allocate(capacity: 1)
        destination.initialize(to: sockaddr_storage())
        for index in 0..<Self.capacity {
            vectors[index] = iovec(iov_base: arena + index * Self.slotSize, iov_len: 0)
            var header = parley_mmsghdr()
            header.msg_hdr.msg_iov = vectors + index
            header.msg_hdr.msg_iovlen = 1
            header.msg_hdr.msg_name = UnsafeMutableRawPointer(destination)
            headers[index] = header
        }
    }

    deinit {
        arena.deallocate()
        headers.deallocate()
        vectors.deallocate()
        destination.deallocate()
    }

    /// Where every datagram goes (a `sockaddr` of `length` bytes).
    func setDestination(_ address: UnsafePointer<sockaddr>, length: Int) {
        guard length <= MemoryLayout<sockaddr_storage>.size else { return }
        UnsafeMutableRawPointer(destination).copyMemory(from: address, byteCount: length)
        for index in 0..<Self.capacity { headers[index].msg_hdr.msg_namelen = socklen_t(length) }
        hasDestination = true
    }

    var isFull: Bool { count == Self.capacity }

    /// Copies one datagram (the parts one after the other) into the next slot; false when it
    /// does not fit a slot or the slots are full (flush first).
    func append(_ bytes: UnsafeRawBufferPointer, then more: UnsafeRawBufferPointer? = nil) -> Bool {
        let length = bytes.count + (more?.count ?? 0)
        guard count < Self.capacity, length <= Self.slotSize else { return false }
        let slot = arena + count * Self.slotSize
        if let base = bytes.baseAddress, bytes.count > 0 { slot.copyMemory(from: base, byteCount: bytes.count) }
        if let more, let base = more.baseAddress, more.count > 0 { (slot + bytes.count).copyMemory(from: base, byteCount: more.count) }
        vectors[count].iov_len = length
        count += 1
        return true
    }

    /// Sends what is queued on `descriptor` with as few `sendmmsg` calls as
    /// it takes; a datagram the kernel refuses (a full buffer) is skipped, as UDP promises no delivery.
    func send(on descriptor: Int32) {
        var sent = 0
        while sent < count {
            let written = parley_udp_send(descriptor, headers + sent, UInt32(count - sent))
            if written > 0 {
                sent += Int(written)
            } else if errno == EINTR {
                continue
            } else {
                sent += 1
            }
        }
        count = 0
    }

    /// Forgets what is queued.
    func clear() { count = 0 }
}
