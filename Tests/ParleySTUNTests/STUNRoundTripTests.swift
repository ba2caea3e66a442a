import Testing
@testable import ParleySTUN

@Suite("STUN building and round trips")
struct STUNRoundTripTests {
    let key = STUNIntegrityKey(password: "relayPasswordOf22chars")

    @Test("Message types encode and decode per RFC 8489 §5", arguments: [
        (STUNMessageType.bindingRequest, UInt16(0x0001)),
        (STUNMessageType.bindingIndication, UInt16(0x0011)),
        (STUNMessageType.bindingSuccessResponse, UInt16(0x0101)),
        (STUNMessageType.bindingErrorResponse, UInt16(0x0111)),
        (STUNMessageType(method: STUNMethod(rawValue: 0x003), messageClass: .request), UInt16(0x0003)),
        (STUNMessageType(method: STUNMethod(rawValue: 0xFFF), messageClass: .errorResponse), UInt16(0x3FFF)),
    ])
    func messageTypes(type: STUNMessageType, raw: UInt16) {
        #expect(type.rawValue == raw)
        #expect(STUNMessageType(rawValue: raw) == type)
    }

    @Test("Types with the top two bits set are not STUN")
    func topBits() {
        #expect(STUNMessageType(rawValue: 0x4001) == nil)
        #expect(STUNMessageType(rawValue: 0x8001) == nil)
    }

    @Test("Binding request with every ICE attribute round-trips and verifies")
    func bindingRequest() throws {
        let id = STUNTransactionID(0x0102_0304, 0x0506_0708, 0x090A_0B0C)
        let bytes = STUNMessageBuilder.bindingRequest(
            transactionID: id, username: "relayufrag:HHOg", priority: 2_130_706_431,
            role: .controlling(tieBreaker: 0xDEAD_BEEF_0102_0304), useCandidate: true, key: key)
        #expect(bytes.count % 4 == 0)
        #expect(Int(bytes[2]) << 8 | Int(bytes[3]) == bytes.count - 20)
        let message = try STUNMessage.parse(bytes).get()
        #expect(message.type == .bindingRequest)
        #expect(message.transactionID == id)
        #expect(message.username == "relayufrag:HHOg")
        #expect(message.priority == 2_130_706_431)
        #expect(message.iceControlling == 0xDEAD_BEEF_0102_0304)
        #expect(message.iceControlled == nil)
        #expect(message.useCandidate)
        #expect(message.verifyMessageIntegrity(bytes, key: key))
        #expect(message.verifyFingerprint(bytes))
        // The fingerprint is the last 8 bytes and integrity the 24 before it.
        #expect(message.fingerprintOffset == bytes.count - 8)
        #expect(message.messageIntegrityOffset == bytes.count - 32)
    }

    @Test("Controlled request without USE-CANDIDATE")
    func controlledRequest() throws {
        let bytes = STUNMessageBuilder.bindingRequest(
            transactionID: .random(), username: "a:b", priority: 1, role: .controlled(tieBreaker: 7),
            useCandidate: false, key: key)
        let message = try STUNMessage.parse(bytes).get()
        #expect(message.iceControlled == 7)
        #expect(!message.useCandidate)
        #expect(message.verifyMessageIntegrity(bytes, key: key))
    }

    @Test("Binding success response carries the mapped address", arguments: [
        STUNTransportAddress(address: STUNIPAddress("127.0.0.1")!, port: 50831),
        STUNTransportAddress(address: STUNIPAddress("::1")!, port: 9),
        STUNTransportAddress(address: STUNIPAddress("fe80::1:2")!, port: 65535),
    ])
    func successResponse(address: STUNTransportAddress) throws {
        let id = STUNTransactionID.random()
        let bytes = STUNMessageBuilder.bindingSuccessResponse(transactionID: id, mappedAddress: address, key: key)
        let message = try STUNMessage.parse(bytes).get()
        #expect(message.type == .bindingSuccessResponse)
        #expect(message.xorMappedAddress == address)
        #expect(message.verifyMessageIntegrity(bytes, key: key))
        #expect(message.verifyFingerprint(bytes))
    }

    @Test("Error responses carry code and reason", arguments: [
        STUNErrorCode.badRequest, .unauthenticated, .roleConflict, STUNErrorCode(code: 599, reason: ""),
    ])
    func errorResponses(error: STUNErrorCode) throws {
        let bytes = STUNMessageBuilder.bindingErrorResponse(transactionID: .random(), error: error, key: key)
        let message = try STUNMessage.parse(bytes).get()
        #expect(message.type == .bindingErrorResponse)
        #expect(message.errorCode == error)
        #expect(message.verifyMessageIntegrity(bytes, key: key))
        #expect(message.verifyFingerprint(bytes))
    }

    @Test("401 without integrity, 420 with UNKNOWN-ATTRIBUTES")
    func unauthenticatedAndUnknown() throws {
        let bytes401 = STUNMessageBuilder.bindingErrorResponse(transactionID: .random(), error: .unauthenticated, key: nil)
        let message401 = try STUNMessage.parse(bytes401).get()
        #expect(message401.errorCode?.code == 401)
        #expect(message401.messageIntegrityOffset == nil)
        #expect(!message401.verifyMessageIntegrity(bytes401, key: key))
        #expect(message401.verifyFingerprint(bytes401))

        let bytes420 = STUNMessageBuilder.bindingErrorResponse(
            transactionID: .random(), error: .unknownAttribute, unknownAttributes: [0x0042], key: key)
        let message420 = try STUNMessage.parse(bytes420).get()
        #expect(message420.errorCode?.code == 420)
        #expect(message420.verifyMessageIntegrity(bytes420, key: key))
    }

    @Test("Unknown attributes are skipped; comprehension-required ones are reported")
    func unknownAttributes() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        builder.append(type: 0x7F01, value: [1, 2, 3])  // unknown, comprehension-required
        builder.append(type: 0xC001, value: [9])  // unknown, optional
        builder.appendUsername("x:y")
        builder.appendMessageIntegrity(key: key)
        builder.appendFingerprint()
        let message = try STUNMessage.parse(builder.bytes).get()
        #expect(message.username == "x:y")
        #expect(message.unknownComprehensionRequired == [0x7F01])
        #expect(message.verifyMessageIntegrity(builder.bytes, key: key))
    }

    @Test("Attributes after MESSAGE-INTEGRITY other than FINGERPRINT are ignored (RFC 8489 §14.5)")
    func afterIntegrity() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        builder.appendUsername("x:y")
        builder.appendMessageIntegrity(key: key)
        builder.appendPriority(5)
        let message = try STUNMessage.parse(builder.bytes).get()
        #expect(message.priority == nil)
        // The length adjustment keeps the integrity valid despite the trailing attribute.
        #expect(message.verifyMessageIntegrity(builder.bytes, key: key))
    }

    @Test("IP address text forms", arguments: [
        ("192.0.2.1", "192.0.2.1"), ("2001:db8::1", "2001:db8::1"), ("::", "::"), ("::1", "::1"),
        ("2001:0db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
    ])
    func addressText(input: String, output: String) throws {
        let address = try #require(STUNIPAddress(input))
        #expect(address.description == output)
        #expect(STUNIPAddress(bytes: address.bytes) == address)
    }

    @Test("Bad IP address text is rejected", arguments: [
        "", "1.2.3", "1.2.3.256", "1.2.3.4.5", "a.b.c.d", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7",
    ])
    func badAddressText(input: String) {
        #expect(STUNIPAddress(input) == nil)
    }

    @Test("CRC-32 check value (\"123456789\" → 0xCBF43926)")
    func crcCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
    }

    @Test("isSTUN covers first bytes 0–3 only (RFC 7983)")
    func firstByte() {
        #expect((0...3).allSatisfy { STUNHeader.isSTUN(firstByte: UInt8($0)) })
        #expect(!(4...255).contains { STUNHeader.isSTUN(firstByte: UInt8($0)) })
        #expect(RFC5769.sampleRequest.withUnsafeBytes { STUNHeader.looksLikeSTUN($0) })
    }
}
