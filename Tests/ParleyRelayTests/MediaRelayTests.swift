import Testing
@testable import ParleyRelay

/// The API the calls layer uses, on a real socket, without a client.
@Suite struct MediaRelayTests {
    @Test("errors carry stable codes")
    func errorCodes() async throws {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        await #expect(throws: MediaRelayError.self) { _ = try await relay.createLeg(offer: "hello", owner: "x") }
        do {
            _ = try await relay.createLeg(offer: "hello", owner: "x")
        } catch {
            #expect(error.code == "invalid_offer")
        }
        do {
            _ = try await relay.createLeg(offer: Fixtures.h264OnlyOffer, owner: "x")
            Issue.record("an H264-only offer was accepted")
        } catch {
            #expect(error.code == "no_acceptable_media")
            #expect(error.parleyError.code == "no_acceptable_media")
        }
        do {
            try await relay.echo(LegID(rawValue: "nope"))
            Issue.record("echo of an unknown leg succeeded")
        } catch {
            #expect(error.code == "unknown_leg")
        }
        await relay.shutdown()
    }

    @Test("legs are counted, announced on the bound port, and released")
    func lifecycle() async throws {
        let relay = try await MediaRelay.start(configuration: RelayConfiguration(host: "127.0.0.1", port: 0))
        #expect(relay.port > 0)
        let (leg, answer) = try await relay.createLeg(offer: Fixtures.aiortcOffer, owner: "call-7")
        #expect(answer.contains("127.0.0.1 \(relay.port) typ host"))
        #expect(await relay.counters().legs == 1)
        let stats = try #require(await relay.stats(for: leg))
        #expect(stats.state == .waitingForICE && stats.owner == "call-7")
        await relay.release(leg)
        #expect(await relay.counters().legs == 0)
        #expect(await relay.stats(for: leg) == nil)
        await relay.shutdown()
        do {
            _ = try await relay.createLeg(offer: Fixtures.aiortcOffer, owner: "late")
            Issue.record("a leg was created after shutdown")
        } catch {
            #expect(error.code == "relay_not_running")
        }
    }
}
