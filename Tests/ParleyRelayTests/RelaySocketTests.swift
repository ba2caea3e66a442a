import Glibc
import NIOCore
import NIOPosix
import Testing
@testable import ParleyRelay

/// The relay's own media socket: addresses as the kernel writes and reads them, datagrams that do
/// not fit a slot, and shutdown.
@Suite struct RelaySocketTests {
    @Test("a peer address survives the trip through sockaddr_in and sockaddr_in6")
    func sockaddrRoundTrip() {
        var storage = sockaddr_storage()
        var length = socklen_t(0)
        let v4 = PeerAddress(ipv4: 0x7F00_0001, port: 40000)
        #expect(v4.write(to: &storage, asIPv6: false, length: &length))
        #expect(length == socklen_t(MemoryLayout<sockaddr_in>.size))
        #expect(PeerAddress(storage: &storage) == v4)
        #expect(PeerAddress(try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)) == v4, "the same key as NIO's address")
        #expect(v4.write(to: &storage, asIPv6: true, length: &length), "a dual-stack socket reaches IPv4 peers")
        #expect(length == socklen_t(MemoryLayout<sockaddr_in6>.size))
        #expect(PeerAddress(storage: &storage) == v4, "written IPv4-mapped (::ffff:127.0.0.1), read back as IPv4")
        #expect(PeerAddress(try! SocketAddress(ipAddress: "::ffff:127.0.0.1", port: 40000)) == v4)
        #expect(v4.transportAddress.description == PeerAddress(ipv4: 0x7F00_0001, port: 40000).transportAddress.description)

        let v6 = PeerAddress(ipv6High: 0x2001_0DB8_0000_0000, low: 0x0000_0000_0000_0001, port: 5004)
        #expect(v6.write(to: &storage, asIPv6: true, length: &length))
        #expect(length == socklen_t(MemoryLayout<sockaddr_in6>.size))
        #expect(PeerAddress(storage: &storage) == v6)
        #expect(PeerAddress(try! SocketAddress(ipAddress: "2001:db8::1", port: 5004)) == v6)
        #expect(!v6.write(to: &storage, asIPv6: false, length: &length), "an IPv6 peer cannot come from an IPv4 socket")
    }

    @Test("datagrams larger than a slot are counted as oversized, not cut short and parsed")
    func oversized() async throws {
        let configuration = RelayConfiguration(host: "127.0.0.1", port: 0, maxDatagramSize: 1500)
        let relay = try await MediaRelay.start(configuration: configuration)
        let sender = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let target = try SocketAddress(ipAddress: "127.0.0.1", port: relay.port)
        for size in [1501, 1700, 4000] {
            var bytes = [UInt8](repeating: 0xAB, count: size)
            bytes[0] = 0x80  // would be SRTP by its first byte
            try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: bytes)))
        }
        try await sender.writeAndFlush(AddressedEnvelope(remoteAddress: target, data: ByteBuffer(bytes: [0xFF, 1, 2])))
        var counters = await relay.counters()
        for _ in 0..<100 where counters.packetsIn < 4 {
            try await Task.sleep(for: .milliseconds(10))
            counters = await relay.counters()
        }
        #expect(counters.packetsIn == 4)
        #expect(counters[.oversized] == 3)
        #expect(counters[.unknownKind] == 1)
        #expect(counters[.unknownSource] == 0)
        try await sender.close()
        await relay.shutdown()
        await relay.shutdown()  // a second shutdown is harmless
    }
}
