import NIOCore
import ParleySTUN
import Testing
@testable import ParleyRelay

/// The ICE-lite responder (RFC 8445 §7.3) and consent freshness (RFC 7675), driven with an
/// injected clock.
@Suite struct ICELiteAgentTests {
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)
    let client = PeerAddress(ipv4: 0x7F00_0001, port: 40000)
    let relayKey = STUNIntegrityKey(password: "relaypasswordrelaypassw")

    func makeAgent() -> ICELiteAgent {
        ICELiteAgent(localUfrag: "relay123", localPassword: "relaypasswordrelaypassw", remoteUfrag: "YkJn",
                     consentTimeout: .seconds(30), now: Self.start)
    }

    func check(username: String = "relay123:YkJn", useCandidate: Bool = false, key: STUNIntegrityKey? = nil,
               id: STUNTransactionID = STUNTransactionID(1, 2, 3)) -> [UInt8] {
        STUNMessageBuilder.bindingRequest(transactionID: id, username: username, priority: 2_130_706_431,
                                          role: .controlling(tieBreaker: 7), useCandidate: useCandidate,
                                          key: key ?? relayKey)
    }

    func handle(_ agent: inout ICELiteAgent, _ bytes: [UInt8], from source: PeerAddress? = nil,
                at now: NIODeadline = ICELiteAgentTests.start) -> ICELiteAgent.CheckOutcome {
        let message = try! STUNMessage.parse(bytes).get()
        return bytes.withUnsafeBytes { agent.handleBindingRequest(message, bytes: $0, from: source ?? client, now: now) }
    }

    @Test("a valid check is answered with XOR-MAPPED-ADDRESS, integrity and fingerprint, and validates its source")
    func validCheck() throws {
        var agent = makeAgent()
        let outcome = handle(&agent, check(id: STUNTransactionID(9, 8, 7)))
        guard case .success(let response, let isNew, let nominatedNow) = outcome else {
            Issue.record("expected success, got \(outcome)")
            return
        }
        #expect(isNew && !nominatedNow)
        let parsed = try STUNMessage.parse(response).get()
        #expect(parsed.type == .bindingSuccessResponse)
        #expect(parsed.transactionID == STUNTransactionID(9, 8, 7))
        #expect(parsed.xorMappedAddress == STUNTransportAddress(address: .v4(0x7F00_0001), port: 40000))
        #expect(parsed.verifyMessageIntegrity(response, key: relayKey))
        #expect(parsed.verifyFingerprint(response))
        #expect(agent.isValid(client))
        #expect(agent.nominated == nil, "no USE-CANDIDATE, no nomination")
    }

    @Test("USE-CANDIDATE nominates; aiortc's plain check first, then the nominating one")
    func nomination() {
        var agent = makeAgent()
        _ = handle(&agent, check())
        #expect(agent.nominated == nil)
        guard case .success(_, let isNew, let nominatedNow) = handle(&agent, check(useCandidate: true)) else {
            Issue.record("nominating check refused")
            return
        }
        #expect(!isNew && nominatedNow)
        #expect(agent.nominated == client)
        // Repeating the nomination is not news; a move to another address is.
        guard case .success(_, _, let again) = handle(&agent, check(useCandidate: true)) else { return }
        #expect(!again)
        let moved = PeerAddress(ipv4: 0x7F00_0001, port: 40002)
        guard case .success(_, let newAddress, let renominated) = handle(&agent, check(useCandidate: true), from: moved) else { return }
        #expect(newAddress && renominated)
        #expect(agent.nominated == moved)
    }

    @Test("checks with the wrong password, username or fingerprint are dropped without an answer")
    func rejectedChecks() {
        var agent = makeAgent()
        #expect(handle(&agent, check(key: STUNIntegrityKey(password: "wrongwrongwrongwrongwrong"))) == .drop(.badIntegrity))
        #expect(handle(&agent, check(username: "relay123:other")) == .drop(.unknownUsername))
        var corrupted = check()
        corrupted[corrupted.count - 1] ^= 0xFF  // last byte of FINGERPRINT
        #expect(handle(&agent, corrupted) == .drop(.badIntegrity))
        #expect(agent.validAddresses.isEmpty)
        #expect(!agent.hasValidCheck)
    }

    @Test("an unknown comprehension-required attribute gets 420 with UNKNOWN-ATTRIBUTES (RFC 8489 §7.3.1)")
    func unknownAttribute() throws {
        var agent = makeAgent()
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: STUNTransactionID(4, 5, 6))
        builder.appendUsername("relay123:YkJn")
        builder.append(type: 0x7777, value: [1, 2, 3, 4])
        builder.appendMessageIntegrity(key: relayKey)
        builder.appendFingerprint()
        guard case .errorResponse(let response) = handle(&agent, builder.bytes) else {
            Issue.record("expected an error response")
            return
        }
        let parsed = try STUNMessage.parse(response).get()
        #expect(parsed.type == .bindingErrorResponse)
        #expect(parsed.errorCode?.code == 420)
        #expect(!agent.isValid(client))
    }

    @Test("consent lasts 30 s after the last valid check (RFC 7675 §5.1)")
    func consent() {
        var agent = makeAgent()
        #expect(agent.consent(now: Self.start + .seconds(29)) == .fresh)
        #expect(agent.consent(now: Self.start + .seconds(31)) == .neverGranted)
        _ = handle(&agent, check(useCandidate: true), at: Self.start + .seconds(10))
        #expect(agent.consent(now: Self.start + .seconds(39)) == .fresh)
        #expect(agent.consent(now: Self.start + .seconds(41)) == .expired)
        // An invalid check does not refresh consent.
        _ = handle(&agent, check(key: STUNIntegrityKey(password: "wrongwrongwrongwrongwrong")), at: Self.start + .seconds(40))
        #expect(agent.consent(now: Self.start + .seconds(41)) == .expired)
    }
}
