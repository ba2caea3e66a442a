import ParleyRTP
import Testing

/// A compound's NACKs lose the packets someone already answered; the rest of the compound stays
/// byte for byte, and a NACK left empty leaves it.
struct RTCPNACKPruningTests {
    let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 9]
    let pli = RTCPBuilder.pictureLossIndication(senderSSRC: 1, mediaSSRC: 2)

    func prune(_ compound: [UInt8], ssrc: UInt32 = 2, answered: Set<UInt16>) -> [UInt8] {
        var bytes = compound
        let length = bytes.withUnsafeMutableBytes { RTCPNACKPruning.prune($0, length: compound.count, mediaSSRC: ssrc) { answered.contains($0) } }
        return Array(bytes.prefix(length))
    }

    func nacks(_ compound: [UInt8]) throws -> [RTCPGenericNACK] {
        try compound.withUnsafeBytes { try RTCPPacket.parseCompound($0).get() }
            .compactMap { if case .genericNACK(let nack) = $0 { nack } else { nil } }
    }

    @Test func answeredPacketsLeaveTheNACKAndTheRestStaysInPlace() throws {
        let nack = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [100, 103, 116, 200, 65_535, 0])
        let pruned = prune(receiverReport + nack + pli, answered: [100, 200, 0])
        #expect(Array(pruned.prefix(8)) == receiverReport)
        #expect(Array(pruned.suffix(pli.count)) == pli, "what follows the NACK moved up whole")
        let left = try nacks(pruned)
        #expect(left.count == 1 && left[0].lostSequenceNumbers == [103, 116, 65_535])
        #expect(left[0].senderSSRC == 1 && left[0].mediaSSRC == 2)
        #expect(pruned.count == 8 + 12 + 4 * left[0].items.count + pli.count)
    }

    @Test func aNACKWithNothingLeftLeavesTheCompound() throws {
        let nack = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [7, 8, 9])
        #expect(prune(receiverReport + nack + pli, answered: [7, 8, 9]) == receiverReport + pli)
        #expect(prune(nack, answered: [7, 8, 9]).isEmpty, "a lone NACK answered in full: nothing to forward")
    }

    @Test func otherStreamsNothingAnsweredAndDamagedInputAreLeftAlone() throws {
        let other = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 3, lostSequenceNumbers: [7])
        #expect(prune(receiverReport + other, answered: [7]) == receiverReport + other, "a NACK about another SSRC")
        let nack = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: [7, 8])
        #expect(prune(nack, answered: [1]) == nack)
        let truncated = Array((receiverReport + nack).dropLast(2))
        #expect(prune(truncated, answered: [7, 8]) == truncated, "a packet longer than what is there is not touched")
    }
}
