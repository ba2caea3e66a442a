import CParleyUDP
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The media socket, owned by the relay rather than by SwiftNIO: one UDP socket read with
/// `recvmmsg` into fixed slots and written with `sendmmsg` from fixed slots, as the C reference
/// relay does. Nothing here allocates after `init`: no address objects, no buffers per datagram.
///
/// Not thread-safe: ``RelayIOLoop`` reads and the ``RelayEngine`` writes, both under the engine's
/// lock; ``wake()`` and ``close()`` are the exceptions.
final class RelaySocket: DatagramSink, @unchecked Sendable {
    let descriptor: Int32
    /// The bound port (the one the kernel picked when asked for 0).
    let port: Int
    let isIPv6: Bool
    /// Bytes per slot: the largest datagram accepted plus room for SRTP's tag, so a packet can be
    /// unprotected and protected again where it was received.
    let slotSize: Int

    private let received: Batch
    private let outgoing: Batch
    private var queued = 0

    /// Binds `host:port` (numeric or a name `getaddrinfo` resolves).
    init(host: String, port: Int, batchSize: Int, slotSize: Int, bufferBytes: Int32) throws(RelaySocketError) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        #else
        hints.ai_socktype = SOCK_DGRAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else { throw .resolve(host: host, code: resolved) }
        defer { freeaddrinfo(list) }
        let family = first.pointee.ai_family
        #if os(Linux)
        let descriptor = socket(family, first.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(family, first.pointee.ai_socktype, 0)
        #endif
        guard descriptor >= 0 else { throw .system(call: "socket", errno: errno) }
        var one: Int32 = 1
        var size = bufferBytes
        // A read timeout lets the loop notice shutdown even if `wake()` is missed.
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if family == AF_INET6 {
            // Dual-stack: `::` takes IPv4 peers too (as IPv4-mapped addresses), whatever the
            // system's net.ipv6.bindv6only says.
            var off: Int32 = 0
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let error = errno
            closeDescriptor(descriptor)
            throw .system(call: "bind", errno: error)
        }
        var bound = sockaddr_storage()
        var boundLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &boundLength) }
        }
        self.descriptor = descriptor
        self.port = Int(PeerAddress(storage: &bound)?.port ?? 0)
        self.isIPv6 = family == AF_INET6
        self.slotSize = slotSize
        received = Batch(count: batchSize, slotSize: slotSize)
        outgoing = Batch(count: batchSize, slotSize: slotSize)
    }

    /// The relay's socket as configured. The dual-stack wildcard `::` falls back to IPv4's
    /// `0.0.0.0` on a machine with IPv6 switched off.
    static func open(_ configuration: RelayConfiguration, logger: Logger) throws(RelaySocketError) -> RelaySocket {
        let slotSize = configuration.maxDatagramSize + RelayEngine.protectionRoom
        do {
            return try RelaySocket(host: configuration.host, port: configuration.port,
                                   batchSize: configuration.vectorReadCount, slotSize: slotSize, bufferBytes: 4 << 20)
        } catch {
            guard configuration.host == "::", error.isAddressFamilyUnsupported else { throw error }
            logger.warning("IPv6 is not available; the media relay listens on IPv4 only")
            return try RelaySocket(host: "0.0.0.0", port: configuration.port,
                                   batchSize: configuration.vectorReadCount, slotSize: slotSize, bufferBytes: 4 << 20)
        }
    }

    deinit {
        received.deallocate()
        outgoing.deallocate()
    }

    // MARK: Reading

    /// Waits for datagrams (up to the read timeout) and returns how many were read into the slots;
    /// 0 on timeout, interruption, a transient error, or after ``wake()``.
    func receive() -> Int {
        received.prepareForReceive()
        let count = parley_udp_receive(descriptor, received.headers, UInt32(received.count))
        return count > 0 ? Int(count) : 0
    }

    /// Datagram `index` of the last ``receive()``: its slot (the whole slot, writable, so SRTP can
    /// work in place), its length, whether it was truncated, and its source.
    @inline(__always)
    func datagram(_ index: Int) -> (slot: UnsafeMutableRawBufferPointer, length: Int, truncated: Bool, source: PeerAddress?) {
        let header = received.headers[index]
        return (received.slot(index), Int(header.msg_len), header.msg_hdr.msg_flags & parley_MSG_TRUNC != 0,
                PeerAddress(storage: received.addresses + index))
    }

    // MARK: Writing

    /// Copies `bytes` into the next outgoing slot; sent at ``flush()`` (or at once when the slots
    /// are full). False when it is larger than a slot or the address is of the other family.
    @discardableResult
    func enqueue(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) -> Bool {
        guard bytes.count <= slotSize else { return false }
        if queued == outgoing.count { flush() }
        guard address.write(to: outgoing.addresses + queued, asIPv6: isIPv6,
                            length: &outgoing.headers[queued].msg_hdr.msg_namelen) else { return false }
        let slot = outgoing.slot(queued)
        if let base = bytes.baseAddress, bytes.count > 0 { slot.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
        outgoing.iovecs[queued].iov_len = bytes.count
        queued += 1
        return true
    }

    /// Sends what is queued with as few `sendmmsg` calls as it takes. A datagram the kernel
    /// refuses (e.g. ECONNREFUSED left by an ICMP error) is skipped: UDP promises no delivery.
    func flush() {
        var sent = 0
        while sent < queued {
            let count = parley_udp_send(descriptor, outgoing.headers + sent, UInt32(queued - sent))
            if count > 0 {
                sent += Int(count)
            } else if errno == EINTR {
                continue
            } else {
                sent += 1
            }
        }
        queued = 0
    }

    // MARK: Lifetime

    /// Makes a blocked ``receive()`` return (Linux: shutdown wakes readers of a UDP socket).
    func wake() {
        _ = shutdown(descriptor, Int32(SHUT_RD))
    }

    func close() {
        closeDescriptor(descriptor)
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}

/// Why the media socket could not be opened.
enum RelaySocketError: Error, CustomStringConvertible {
    case resolve(host: String, code: Int32)
    case system(call: String, errno: Int32)

    /// The machine has no IPv6 (or the asked family at all).
    var isAddressFamilyUnsupported: Bool {
        switch self {
        case .system(let call, let code): call == "socket" && code == EAFNOSUPPORT
        case .resolve(_, let code): code == EAI_FAMILY
        }
    }

    var description: String {
        switch self {
        case .resolve(let host, let code): "cannot resolve \(host): \(String(cString: gai_strerror(code)))"
        case .system(let call, let errno): "\(call): \(String(cString: strerror(errno)))"
        }
    }
}

/// Where the engine's datagrams go. ``RelaySocket`` in the server; nothing in engine-only tests.
protocol DatagramSink: AnyObject {
    /// Queues a copy of `bytes` for `address`; false when it cannot be sent.
    @discardableResult
    func enqueue(_ bytes: UnsafeRawBufferPointer, to address: PeerAddress) -> Bool
    /// Sends everything queued.
    func flush()
}

extension RelaySocket {
    /// `count` message headers, each with its own address and one iovec over its own slot; set
    /// up once, so a batch only rewrites lengths.
    struct Batch {
        let count: Int
        let slotSize: Int
        let headers: UnsafeMutablePointer<parley_mmsghdr>
        let iovecs: UnsafeMutablePointer<iovec>
        let addresses: UnsafeMutablePointer<sockaddr_storage>
        let bytes: UnsafeMutableRawPointer

        init(count: Int, slotSize: Int) {
            self.count = count
            self.slotSize = slotSize
            headers = .allocate(capacity: count)
            iovecs = .allocate(capacity: count)
            addresses = .allocate(capacity: count)
            addresses.initialize(repeating: sockaddr_storage(), count: count)
            bytes = .allocate(byteCount: count * slotSize, alignment: 16)
            bytes.initializeMemory(as: UInt8.self, repeating: 0, count: count * slotSize)
            for index in 0..<count {
                iovecs[index] = iovec(iov_base: bytes + index * slotSize, iov_len: slotSize)
                var header = msghdr()
                header.msg_name = UnsafeMutableRawPointer(addresses + index)
                header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                header.msg_iov = iovecs + index
                header.msg_iovlen = 1
                headers.advanced(by: index).initialize(to: parley_mmsghdr(msg_hdr: header, msg_len: 0))
            }
        }

        @inline(__always)
        func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
            UnsafeMutableRawBufferPointer(start: bytes + index * slotSize, count: slotSize)
        }

        /// The kernel overwrites the address lengths and flags; the iovecs it leaves alone.
        func prepareForReceive() {
            for index in 0..<count {
                headers[index].msg_hdr.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                headers[index].msg_hdr.msg_flags = 0
            }
        }

        func deallocate() {
            headers.deallocate()
            iovecs.deallocate()
            addresses.deallocate()
            bytes.deallocate()
        }
    }
}
