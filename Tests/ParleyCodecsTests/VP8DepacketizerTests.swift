import Testing
@testable import ParleyCodecs

@Suite("RFC 7741 §4.5 depacketization")
struct VP8DepacketizerTests {
    /// A fake key frame (P=0 in the first octet) of `size` octets, split into 100-octet payloads.
    func payloads(size: Int, pictureID: UInt16, key: Bool = false) throws -> [VP8RTPPayload] {
        var packetizer = try VP8Packetizer(maxPayloadSize: 100, pictureID: pictureID)
        var frame = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
        frame[0] = key ? 0x10 : 0x11
        return packetizer.packetize(frame)
    }

    @Test func reassemblesAcrossTheSequenceWrap() throws {
        var depacketizer = VP8Depacketizer()
        let parts = try payloads(size: 450, pictureID: 5, key: true)
        var outcomes: [VP8Depacketizer.Outcome] = []
        for (i, p) in parts.enumerated() {
            outcomes.append(depacketizer.push(p.bytes, sequenceNumber: 65_534 &+ UInt16(i), marker: p.marker))
        }
        #expect(outcomes.dropLast().allSatisfy { $0 == .incomplete })
        guard case .frame(let frame) = outcomes.last else { Issue.record("no frame"); return }
        #expect(frame.data.count == 450 && frame.isKeyFrame && frame.pictureID == 5)
        #expect(frame.firstSequenceNumber == 65_534 && frame.lastSequenceNumber == 65_534 &+ 4)
        #expect(!depacketizer.needsKeyFrame)
    }

    @Test func detectsADroppedPacketAndDiscardsItsFrame() throws {
        var depacketizer = VP8Depacketizer()
        let first = try payloads(size: 300, pictureID: 1, key: true)   // 4 payloads
        let second = try payloads(size: 300, pictureID: 2)
        var seq: UInt16 = 100
        for p in first { _ = depacketizer.push(p.bytes, sequenceNumber: seq, marker: p.marker); seq &+= 1 }
        #expect(depacketizer.push(second[0].bytes, sequenceNumber: seq, marker: false) == .incomplete)
        seq &+= 2  // second[1] is lost
        #expect(depacketizer.push(second[2].bytes, sequenceNumber: seq, marker: false) == .dropped(.packetsLost(count: 1)))
        #expect(depacketizer.push(second[3].bytes, sequenceNumber: seq &+ 1, marker: true) == .dropped(.noFrameStart))
        #expect(depacketizer.statistics.packetsLost == 1)
        #expect(depacketizer.statistics.framesDiscarded == 1)
        #expect(depacketizer.statistics.framesDelivered == 1)
        #expect(depacketizer.needsKeyFrame)
    }

    @Test func lostMarkerPacketIsNoticedAtTheNextStart() throws {
        var depacketizer = VP8Depacketizer()
        let a = try payloads(size: 150, pictureID: 1, key: true), b = try payloads(size: 50, pictureID: 2)
        #expect(depacketizer.push(a[0].bytes, sequenceNumber: 1, marker: false) == .incomplete)
        // a[1] (with the marker) is lost; b is one packet.
        guard case .frame(let frame) = depacketizer.push(b[0].bytes, sequenceNumber: 3, marker: true) else {
            Issue.record("b should still come out"); return
        }
        #expect(frame.pictureID == 2 && !frame.isKeyFrame)
        #expect(depacketizer.statistics.packetsLost == 1 && depacketizer.statistics.framesDiscarded == 1)
    }

    @Test func pictureIDChangeMidFrameDiscards() throws {
        var depacketizer = VP8Depacketizer()
        let a = try payloads(size: 150, pictureID: 1), b = try payloads(size: 150, pictureID: 9)
        _ = depacketizer.push(a[0].bytes, sequenceNumber: 1, marker: false)
        #expect(depacketizer.push(b[1].bytes, sequenceNumber: 2, marker: true) == .dropped(.pictureIDMismatch))
    }

    @Test func duplicatesAndReorderedPacketsAreDropped() throws {
        var depacketizer = VP8Depacketizer()
        let a = try payloads(size: 150, pictureID: 1)
        _ = depacketizer.push(a[0].bytes, sequenceNumber: 10, marker: false)
        #expect(depacketizer.push(a[0].bytes, sequenceNumber: 10, marker: false) == .dropped(.outOfOrder))
        #expect(depacketizer.push(a[0].bytes, sequenceNumber: 9, marker: false) == .dropped(.outOfOrder))
        guard case .frame = depacketizer.push(a[1].bytes, sequenceNumber: 11, marker: true) else {
            Issue.record("frame should complete"); return
        }
    }

    @Test func oversizedFramesAreDropped() throws {
        var depacketizer = VP8Depacketizer(maxFrameSize: 120)
        let a = try payloads(size: 150, pictureID: 1)
        _ = depacketizer.push(a[0].bytes, sequenceNumber: 1, marker: false)
        #expect(depacketizer.push(a[1].bytes, sequenceNumber: 2, marker: true) == .dropped(.frameTooLarge))
    }
}
