import Testing
@testable import ParleyDTLS
import ParleySRTP

@Suite("Fragmented ClientHello, lost flights and garbage (RFC 6347 §4.2.3, §4.2.4, §4.1.2.7)")
struct DTLSFragmentationTests {
    typealias Tests = DTLSHandshakeTests

    @Test("a Chromium-sized ClientHello in two datagrams completes")
    func chromiumSizedHello() throws {
        let client = try TestDTLSClient(helloPadding: 1100)
        let records = client.start()
        #expect(records.count == 2)
        #expect(records.map(\.count).reduce(0, +) > 1300)
        var server = try Tests.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: records)
        try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
    }

    @Test("the first flight cut into two datagrams at every record boundary completes")
    func everySplit() throws {
        let probe = try TestDTLSClient(linkMTU: 300, helloPadding: 1100)
        let count = probe.start().count
        #expect(count >= 5)
        for cut in 1..<count {
            let client = try TestDTLSClient(linkMTU: 300, helloPadding: 1100)
            let records = client.start()
            let datagrams = [Array(records[..<cut].joined()), Array(records[cut...].joined())]
            var server = try Tests.server(for: client)
            var handshake = Handshake()
            handshake.run(&server, client, first: datagrams)
            try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
        }
    }

    @Test("ClientHello fragments arriving in reverse order complete")
    func reversedFragments() throws {
        let client = try TestDTLSClient(linkMTU: 300, helloPadding: 1100)
        var server = try Tests.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start().reversed())
        try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
    }

    @Test("a lost server flight is resent by handleTimeout")
    func lostServerFlight() async throws {
        let client = try TestDTLSClient()
        var server = try Tests.server(for: client, timeout: .milliseconds(50))
        #expect(server.nextTimeout == nil)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start(), dropServerFlight: { $0 == 0 })
        #expect(server.state == .handshaking)
        let lost = handshake.serverDatagrams
        let pending = server.nextTimeout
        let wait = try #require(pending)
        #expect(wait <= .milliseconds(50))
        #expect(server.handleTimeout().datagrams.isEmpty || wait == .zero)  // not yet due
        try await Task.sleep(for: wait + .milliseconds(20))
        let resent = server.handleTimeout()
        #expect(resent.newState == nil)
        // OpenSSL packed the first transmission's records into one datagram and resends them one
        // per datagram: the same records (with new record sequence numbers), so the same bytes.
        #expect(resent.datagrams.map(\.count).reduce(0, +) == lost.map(\.count).reduce(0, +))
        #expect(resent.datagrams.allSatisfy { $0.count <= server.mtu })
        let next = server.nextTimeout
        #expect(try #require(next) > .milliseconds(50))  // doubled
        handshake.run(&server, client, first: resent.datagrams.flatMap { client.receive($0) })
        try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
    }

    @Test("a lost final server flight is resent when the client retransmits its Finished")
    func lostFinalFlight() async throws {
        let client = try TestDTLSClient(retransmitMicros: 30_000)
        var server = try Tests.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start(), dropServerFlight: { $0 == 1 })
        guard case .connected = server.state else {
            Issue.record("server should be connected, is \(server.state)")
            return
        }
        #expect(!client.isConnected)
        try await Task.sleep(for: .milliseconds(80))
        handshake.run(&server, client, first: client.handleTimeout())
        try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
        #expect(handshake.serverStates.count == 1)  // connected once, not again
    }

    @Test("garbage datagrams are ignored or fail the endpoint, never crash")
    func garbage() throws {
        var generator = SystemRandomNumberGenerator()
        let client = try TestDTLSClient()
        var server = try Tests.server(for: client)
        #expect([UInt8]().withUnsafeBytes { server.receive($0) }.datagrams.isEmpty)
        for length in [1, 12, 13, 14, 25, 100, 1500] {
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes[0] = 22  // handshake record type
            let outcome = bytes.withUnsafeBytes { server.receive($0) }
            #expect(outcome.newState == nil)
        }
        // A well-formed record header around random bytes: dropped or fatal, not a crash.
        for _ in 0..<50 {
            var record: [UInt8] = [22, 0xFE, 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40]
            record += (0..<40).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var fresh = try Tests.server(for: client)
            _ = record.withUnsafeBytes { fresh.receive($0) }
        }
        // The first server still completes a real handshake afterwards.
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        try Tests.expectAgreement(server, client, profile: .aeadAES128GCM)
        // Garbage after connection is discarded (bad records are dropped, RFC 6347 §4.1.2.7).
        for _ in 0..<20 {
            var record: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 48]
            record += (0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let outcome = record.withUnsafeBytes { server.receive($0) }
            #expect(outcome.newState == nil)
        }
        guard case .connected = server.state else {
            Issue.record("garbage after the handshake changed the state to \(server.state)")
            return
        }
    }

    @Test("close_notify from the client closes; close() sends one")
    func closeNotify() throws {
        let client = try TestDTLSClient()
        var server = try Tests.server(for: client)
        var handshake = Handshake()
        handshake.run(&server, client, first: client.start())
        let alert = client.closeNotify()
        #expect(alert.count == 1)
        let outcome = alert[0].withUnsafeBytes { server.receive($0) }
        #expect(outcome.newState == .closed)
        #expect(outcome.datagrams.count == 1)  // our close_notify
        #expect(alert[0].withUnsafeBytes { server.receive($0) }.datagrams.isEmpty)  // ignored now

        let other = try TestDTLSClient()
        var second = try Tests.server(for: other)
        handshake = Handshake()
        handshake.run(&second, other, first: other.start())
        let closing = second.close()
        #expect(closing.newState == .closed)
        #expect(closing.datagrams.count == 1)
        _ = other.receive(closing.datagrams[0])
        #expect(other.receivedCloseNotify)
    }
}
