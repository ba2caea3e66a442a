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
        guard case .success(let response, let isNew, let useCandidate, let credentials) = outcome else {
            Issue.record("expected success, got \(outcome)")
            return
        }
        #expect(isNew && !useCandidate && credentials == .current)
        let parsed = try STUNMessage.parse(response).get()
        #expect(parsed.type == .bindingSuccessResponse)
        #expect(parsed.transactionID == STUNTransactionID(9, 8, 7))
        #expect(parsed.xorMappedAddress == STUNTransportAddress(address: .v4(0x7F00_0001), port: 40000))
        #expect(parsed.verifyMessageIntegrity(response, key: relayKey))
        #expect(parsed.verifyFingerprint(response))
        #expect(agent.isValid(client))
    }

    @Test("USE-CANDIDATE is reported (aiortc's plain check first, then the nominating one); a new address is news once")
    func nomination() {
        var agent = makeAgent()
        guard case .success(_, true, false, .current) = handle(&agent, check()) else {
            Issue.record("plain check")
            return
        }
        guard case .success(_, false, true, .current) = handle(&agent, check(useCandidate: true)) else {
            Issue.record("nominating check from the same address")
            return
        }
        let moved = PeerAddress(ipv4: 0x7F00_0001, port: 40002)
        guard case .success(_, true, true, .current) = handle(&agent, check(useCandidate: true), from: moved) else {
            Issue.record("nominating check from a new address")
            return
        }
        #expect(agent.validAddresses == [client, moved])
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

    // MARK: ICE restart (RFC 8445 §9)

    static let newKey = STUNIntegrityKey(password: "newpasswordnewpasswordnw")

    func restarted() -> ICELiteAgent {
        var agent = makeAgent()
        _ = handle(&agent, check(useCandidate: true))
        let dropped = agent.restart(localUfrag: "relay456", localPassword: "newpasswordnewpasswordnw",
                                    remoteUfrag: "Zq9w", now: Self.start + .seconds(1))
        #expect(dropped.isEmpty)
        return agent
    }

    @Test("after a restart the old credentials stay valid until the new ones are used, then for the overlap")
    func restartOverlap() {
        var agent = restarted()
        #expect(agent.localUfrags == ["relay123", "relay456"])
        // The client keeps the old pair until its new checks succeed.
        #expect(handle(&agent, check(), at: Self.start + .seconds(5)).credentials == .current)
        let renewedAt = Self.start + .seconds(6)
        #expect(handle(&agent, check(username: "relay456:Zq9w", useCandidate: true, key: Self.newKey), at: renewedAt)
            .credentials == .renewed)
        #expect(agent.localUfrag == "relay456" && agent.remoteUfrag == "Zq9w")
        #expect(handle(&agent, check(username: "relay456:Zq9w", key: Self.newKey), at: renewedAt).credentials == .current)
        // Old checks in flight are still answered for the overlap, then dropped.
        #expect(handle(&agent, check(), at: renewedAt + ICELiteAgent.restartOverlap).credentials == .retiring)
        #expect(handle(&agent, check(), at: renewedAt + ICELiteAgent.restartOverlap + .milliseconds(1)) == .drop(.staleCredentials))
        // A retiring ufrag with the wrong password is not authentic either.
        var again = restarted()
        _ = handle(&again, check(username: "relay456:Zq9w", key: Self.newKey), at: renewedAt)
        #expect(handle(&again, check(key: Self.newKey), at: renewedAt) == .drop(.badIntegrity))
    }

    @Test("the new ufrag with the old password, or the old remote ufrag with the new local one, is refused")
    func restartCredentialsAreAPair() {
        var agent = restarted()
        #expect(handle(&agent, check(username: "relay456:Zq9w")) == .drop(.badIntegrity))
        #expect(handle(&agent, check(username: "relay456:YkJn", key: Self.newKey)) == .drop(.unknownUsername))
        #expect(agent.pending != nil, "a refused check does not switch credentials")
    }

    @Test("a second restart before the first was used replaces it; the unused ufrag is given back")
    func restartTwice() {
        var agent = restarted()
        let dropped = agent.restart(localUfrag: "relay789", localPassword: "thirdpasswordthirdpassw",
                                    remoteUfrag: "Kp3x", now: Self.start + .seconds(2))
        #expect(dropped == ["relay456"])
        #expect(agent.localUfrags == ["relay123", "relay789"])
        #expect(handle(&agent, check(username: "relay456:Zq9w", key: Self.newKey)) == .drop(.unknownUsername))
        #expect(handle(&agent, check(), at: Self.start + .seconds(3)).credentials == .current)
    }

    @Test("checks with either credentials refresh consent across a restart")
    func restartConsent() {
        var agent = restarted()
        _ = handle(&agent, check(username: "relay456:Zq9w", key: Self.newKey), at: Self.start + .seconds(20))
        #expect(agent.consent(now: Self.start + .seconds(49)) == .fresh)
    }
}

extension ICELiteAgent.CheckOutcome {
    /// The credentials a successful check used; nil otherwise.
    var credentials: ICELiteAgent.CredentialUse? {
        if case .success(_, _, _, let use) = self { use } else { nil }
    }
}
