import Testing
@testable import ParleySTUN
import ParleyTestSupport

@Suite("STUN input that must be rejected")
struct STUNRejectionTests {
    let key = STUNIntegrityKey(password: RFC5769.password)

    private func parseError(_ bytes: [UInt8]) -> STUNParseError? {
        if case .failure(let error) = STUNMessage.parse(bytes) { return error }
        return nil
    }

    @Test("A flipped bit anywhere before MESSAGE-INTEGRITY breaks integrity")
    func badIntegrity() throws {
        for index in 20..<76 {
            var bytes = RFC5769.sampleRequest
            bytes[index] ^= 0x01
            // Padding flips still parse; everything must fail the HMAC.
            guard case .success(let message) = STUNMessage.parse(bytes) else { continue }
            #expect(!message.verifyMessageIntegrity(bytes, key: key), "byte \(index)")
        }
    }

    @Test("A wrong MAC or CRC is caught")
    func badChecks() throws {
        var bytes = RFC5769.ipv4Response
        bytes[60] ^= 0xFF  // inside the HMAC value
        var message = try STUNMessage.parse(bytes).get()
        #expect(!message.verifyMessageIntegrity(bytes, key: key))
        #expect(!message.verifyFingerprint(bytes))

        bytes = RFC5769.ipv4Response
        bytes[bytes.count - 1] ^= 0x01  // the CRC itself
        message = try STUNMessage.parse(bytes).get()
        #expect(message.verifyMessageIntegrity(bytes, key: key))
        #expect(!message.verifyFingerprint(bytes))
    }

    @Test("Checks fail without the attribute or against other bytes")
    func checksNeedTheirAttribute() throws {
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        builder.appendUsername("a:b")
        let message = try STUNMessage.parse(builder.bytes).get()
        #expect(!message.verifyMessageIntegrity(builder.bytes, key: key))
        #expect(!message.verifyFingerprint(builder.bytes))
        let request = try STUNMessage.parse(RFC5769.sampleRequest).get()
        #expect(!request.verifyMessageIntegrity(RFC5769.ipv4Response, key: key))
    }

    @Test("Header problems have their own errors")
    func headerErrors() {
        #expect(parseError([]) == .tooShort)
        #expect(parseError(Array(RFC5769.sampleRequest.prefix(19))) == .tooShort)
        var bytes = RFC5769.sampleRequest
        bytes[0] = 0x40
        #expect(parseError(bytes) == .notSTUN)
        bytes = RFC5769.sampleRequest
        bytes[4] = 0x22
        #expect(parseError(bytes) == .badMagicCookie)
        bytes = RFC5769.sampleRequest
        bytes[3] = 0x59
        #expect(parseError(bytes) == .lengthNotMultipleOfFour)
        bytes = RFC5769.sampleRequest
        bytes[3] = 0x5C
        #expect(parseError(bytes) == .lengthMismatch)
        #expect(parseError(Array(RFC5769.sampleRequest.dropLast(4))) == .lengthMismatch)
    }

    @Test("Attribute problems have their own errors")
    func attributeErrors() {
        // An attribute whose length runs past the end.
        var bytes = RFC5769.sampleRequest
        bytes[22...23] = [0x00, 0xFF]
        #expect(parseError(bytes) == .truncatedAttribute(type: 0x8022))
        // PRIORITY with 3 bytes.
        bytes = RFC5769.sampleRequest
        bytes[43] = 0x03
        #expect(parseError(bytes) == .malformedAttribute(type: 0x0024))
        // Something after FINGERPRINT.
        var builder = STUNMessageBuilder(type: .bindingRequest, transactionID: .random())
        builder.appendFingerprint()
        builder.appendPriority(1)
        #expect(parseError(builder.bytes) == .attributeAfterFingerprint)
        // XOR-MAPPED-ADDRESS with an unknown family.
        builder = STUNMessageBuilder(type: .bindingSuccessResponse, transactionID: .random())
        builder.append(type: STUNAttributeType.xorMappedAddress, value: [0, 3, 0, 0, 1, 2, 3, 4])
        #expect(parseError(builder.bytes) == .malformedAttribute(type: 0x0020))
        // ERROR-CODE with class 2.
        builder = STUNMessageBuilder(type: .bindingErrorResponse, transactionID: .random())
        builder.append(type: STUNAttributeType.errorCode, value: [0, 0, 2, 0])
        #expect(parseError(builder.bytes) == .malformedAttribute(type: 0x0009))
    }

    @Test("Every truncation of every vector is rejected without crashing")
    func truncations() {
        for vector in [RFC5769.sampleRequest, RFC5769.ipv4Response, RFC5769.ipv6Response] {
            for count in 0..<vector.count {
                #expect(parseError(Array(vector.prefix(count))) != nil)
                // A slice that does not start at index 0 must behave the same.
                #expect(STUNMessage.parse(vector[1..<max(1, count)]).isFailure)
            }
        }
    }

    @Test("Random bytes and random mutations never crash the parser")
    func fuzz() {
        var generator = SeededRandom(seed: 0x5354_554E)
        let seeds = [RFC5769.sampleRequest, RFC5769.ipv4Response, RFC5769.ipv6Response]
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 128)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
                if bytes.count >= 8, round % 4 == 0 {
                    // Make it pass the cheap header checks so the attribute walk is exercised.
                    bytes[0] &= 0x3F
                    bytes[4...7] = [0x21, 0x12, 0xA4, 0x42]
                    let length = (bytes.count - 20) & ~3
                    if length >= 0 { bytes = Array(bytes.prefix(20 + length)); bytes[2] = 0; bytes[3] = UInt8(length) }
                }
            } else {
                bytes = seeds[Int(generator.next() % 3)]
                for _ in 0..<(1 + Int(generator.next() % 4)) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                }
                if generator.next() % 3 == 0 { bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count)))) }
            }
            if case .success(let message) = STUNMessage.parse(bytes) {
                _ = message.verifyMessageIntegrity(bytes, key: key)
                _ = message.verifyFingerprint(bytes)
            }
        }
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
