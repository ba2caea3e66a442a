import Testing
@testable import ParleySTUN

/// RFC 5769's vectors must parse, verify, and decode to the values the RFC states.
@Suite("RFC 5769 test vectors")
struct RFC5769Tests {
    let key = STUNIntegrityKey(password: RFC5769.password)

    @Test("§2.1 sample request parses with every attribute decoded")
    func sampleRequest() throws {
        let message = try STUNMessage.parse(RFC5769.sampleRequest).get()
        #expect(message.type == .bindingRequest)
        #expect(message.type.rawValue == 0x0001)
        #expect(message.transactionID == STUNTransactionID(bytes: RFC5769.transactionID))
        #expect(message.software == "STUN test client")
        #expect(message.priority == 0x6E00_01FF)
        #expect(message.iceControlled == 0x932F_F9B1_5126_3B36)
        #expect(message.iceControlling == nil)
        #expect(message.useCandidate == false)
        #expect(message.username == "evtj:h6vY")
        #expect(message.messageIntegrityOffset == 76)
        #expect(message.fingerprintOffset == 100)
        #expect(message.unknownComprehensionRequired.isEmpty)
    }

    @Test("§2.1 sample request: MESSAGE-INTEGRITY and FINGERPRINT verify")
    func sampleRequestChecks() throws {
        let message = try STUNMessage.parse(RFC5769.sampleRequest).get()
        #expect(message.verifyMessageIntegrity(RFC5769.sampleRequest, key: key))
        #expect(message.verifyFingerprint(RFC5769.sampleRequest))
        #expect(!message.verifyMessageIntegrity(RFC5769.sampleRequest, key: STUNIntegrityKey(password: "wrong")))
    }

    @Test("§2.2 IPv4 response decodes 192.0.2.1:32853 and verifies")
    func ipv4Response() throws {
        let message = try STUNMessage.parse(RFC5769.ipv4Response).get()
        #expect(message.type == .bindingSuccessResponse)
        #expect(message.software == "test vector")
        #expect(message.xorMappedAddress == STUNTransportAddress(address: STUNIPAddress("192.0.2.1")!, port: 32853))
        #expect(message.xorMappedAddress?.description == "192.0.2.1:32853")
        #expect(message.verifyMessageIntegrity(RFC5769.ipv4Response, key: key))
        #expect(message.verifyFingerprint(RFC5769.ipv4Response))
    }

    @Test("§2.3 IPv6 response decodes [2001:db8:1234:5678:11:2233:4455:6677]:32853 and verifies")
    func ipv6Response() throws {
        let message = try STUNMessage.parse(RFC5769.ipv6Response).get()
        let expected = STUNIPAddress("2001:db8:1234:5678:11:2233:4455:6677")!
        #expect(message.xorMappedAddress == STUNTransportAddress(address: expected, port: 32853))
        #expect(message.xorMappedAddress?.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(message.verifyMessageIntegrity(RFC5769.ipv6Response, key: key))
        #expect(message.verifyFingerprint(RFC5769.ipv6Response))
    }

    @Test("Rebuilding the §2.2 response reproduces its XOR-MAPPED-ADDRESS, integrity and fingerprint bytes")
    func rebuildIPv4Response() throws {
        var builder = STUNMessageBuilder(type: .bindingSuccessResponse,
                                         transactionID: STUNTransactionID(bytes: RFC5769.transactionID)!)
        builder.appendSoftware("test vector")
        builder.appendXORMappedAddress(STUNTransportAddress(address: .v4(0xC000_0201), port: 32853))
        builder.appendMessageIntegrity(key: key)
        builder.appendFingerprint()
        // The RFC pads SOFTWARE with 0x20 where we write 0x00, so only that byte differs;
        // integrity and fingerprint then differ too, since they cover it.
        #expect(Array(builder.bytes[0..<35]) == Array(RFC5769.ipv4Response[0..<35]))
        #expect(Array(builder.bytes[40..<52]) == Array(RFC5769.ipv4Response[40..<52]))
        let rebuilt = try STUNMessage.parse(builder.bytes).get()
        #expect(rebuilt.verifyMessageIntegrity(builder.bytes, key: key))
        #expect(rebuilt.verifyFingerprint(builder.bytes))
    }

    @Test("Our HMAC and CRC over each vector's own prefix reproduce the RFC's values exactly",
          arguments: [RFC5769.sampleRequest, RFC5769.ipv4Response, RFC5769.ipv6Response])
    func computedValuesMatch(vector: [UInt8]) throws {
        let message = try STUNMessage.parse(vector).get()
        let integrity = try #require(message.messageIntegrityOffset)
        let fingerprint = try #require(message.fingerprintOffset)
        let mac = vector.withUnsafeBytes {
            MessageIntegrity.compute($0, end: integrity, length: UInt16(integrity + 24 - 20), key: key)
        }
        #expect(Array(mac) == Array(vector[(integrity + 4)..<(integrity + 24)]))
        let crc = vector.withUnsafeBytes { Fingerprint.compute($0, end: fingerprint) }
        let stored = vector[(fingerprint + 4)..<(fingerprint + 8)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(crc == stored)
    }
}
