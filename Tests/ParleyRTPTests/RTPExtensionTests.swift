import Testing
@testable import ParleyRTP

@Suite("RTP header extensions (RFC 8285)")
struct RTPExtensionTests {
    private func elements(_ bytes: [UInt8]) throws -> [(UInt8, [UInt8])] {
        let header = try RTPHeader.parse(bytes).get()
        return bytes.withUnsafeBytes { raw in
            RTPHeaderExtensionIterator(raw, header: header).map { ($0.id, Array(raw[$0.valueRange])) }
        }
    }

    @Test("One-byte elements: abs-send-time, transport-wide seq, mid")
    func oneByte() throws {
        let bytes = RTPVectors.videoWithOneByteExtension
        let found = try elements(bytes)
        #expect(found.map(\.0) == [2, 3, 4])
        #expect(found.map(\.1) == [[0x12, 0x34, 0x56], [0x00, 0x05], [0x31]])
        let header = try RTPHeader.parse(bytes).get()
        bytes.withUnsafeBytes { raw in
            #expect(header.absSendTime(id: 2, in: raw) == 0x12_3456)
            #expect(header.transportSequenceNumber(id: 3, in: raw) == 5)
            #expect(header.extensionValueRange(id: 9, in: raw) == nil)
            #expect(header.extensionIsWellFormed(in: raw))
        }
    }

    @Test("Audio level (RFC 6464)")
    func audioLevel() throws {
        let bytes = RTPVectors.audioWithCSRCsAndPadding
        let header = try RTPHeader.parse(bytes).get()
        let level = bytes.withUnsafeBytes { header.audioLevel(id: 1, in: $0) }
        #expect(level?.voiceActivity == true)
        #expect(level?.level == 42)
    }

    @Test("Two-byte elements, including a zero-length one")
    func twoByte() throws {
        let found = try elements(RTPVectors.twoByteExtension)
        #expect(found.map(\.0) == [15, 200])
        #expect(found.map(\.1) == [[], Array("abc".utf8)])
    }

    @Test("One-byte id 15 stops processing (RFC 8285 §4.2)")
    func idFifteenStops() throws {
        var bytes = RTPVectors.videoWithOneByteExtension
        bytes[20] = 0xF0  // the id-3 element header becomes id 15
        #expect(try elements(bytes).map(\.0) == [2])
    }

    @Test("Rewriting ids through a map, dropping unmapped ones as padding")
    func rewriteIDs() throws {
        var bytes = RTPVectors.videoWithOneByteExtension
        let header = try RTPHeader.parse(bytes).get()
        // The other leg (aiortc fixture) has abs-send-time at 3 and mid at 1; no transport-cc.
        let map = RTPHeaderExtensionIDMap([2: 3, 4: 1])
        #expect(header.rewriteExtensionIDs(in: &bytes, using: map))
        #expect(try elements(bytes).map(\.0) == [3, 1])
        #expect(try elements(bytes).map(\.1) == [[0x12, 0x34, 0x56], [0x31]])
        #expect(Array(bytes[16..<28]) == [0x32, 0x12, 0x34, 0x56, 0x00, 0x00, 0x00, 0x10, 0x31, 0x00, 0x00, 0x00])
        // The packet keeps its size and everything outside the extension.
        #expect(bytes.count == RTPVectors.videoWithOneByteExtension.count)
        #expect(Array(bytes[28...]) == Array(RTPVectors.videoWithOneByteExtension[28...]))
    }

    @Test("One-byte targets above 14 are dropped; two-byte maps to any id")
    func rewriteLimits() throws {
        var bytes = RTPVectors.videoWithOneByteExtension
        let header = try RTPHeader.parse(bytes).get()
        var map = RTPHeaderExtensionIDMap()
        map[2] = 20
        map[3] = 3
        #expect(header.rewriteExtensionIDs(in: &bytes, using: map))
        #expect(try elements(bytes).map(\.0) == [3])

        var two = RTPVectors.twoByteExtension
        let twoHeader = try RTPHeader.parse(two).get()
        #expect(twoHeader.rewriteExtensionIDs(in: &two, using: RTPHeaderExtensionIDMap([200: 100, 15: 250])))
        #expect(try elements(two).map(\.0) == [250, 100])
    }

    @Test("Overwriting a value in place: restamp abs-send-time and transport-wide seq")
    func overwrite() throws {
        var bytes = RTPVectors.videoWithOneByteExtension
        let header = try RTPHeader.parse(bytes).get()
        bytes.withUnsafeMutableBytes { buffer in
            #expect(header.setTransportSequenceNumber(0xBEEF, id: 3, in: buffer))
            #expect(header.overwriteExtension(id: 2, with: [0xAB, 0xCD, 0xEF], in: buffer))
            #expect(!header.overwriteExtension(id: 2, with: [0xAB], in: buffer))  // size differs
            #expect(!header.setTransportSequenceNumber(1, id: 9, in: buffer))  // absent
        }
        bytes.withUnsafeBytes { raw in
            #expect(header.transportSequenceNumber(id: 3, in: raw) == 0xBEEF)
            #expect(header.absSendTime(id: 2, in: raw) == 0xAB_CDEF)
        }
    }

    @Test("A malformed extension is reported and not rewritten")
    func malformed() throws {
        var bytes = RTPVectors.videoWithOneByteExtension
        bytes[20] = 0x3F  // id 3 now claims 16 bytes, past the extension
        let header = try RTPHeader.parse(bytes).get()
        let before = bytes
        #expect(bytes.withUnsafeBytes { !header.extensionIsWellFormed(in: $0) })
        #expect(!header.rewriteExtensionIDs(in: &bytes, using: RTPHeaderExtensionIDMap([2: 5])))
        #expect(bytes == before)
        // Elements before the bad one are still readable.
        #expect(try elements(bytes).map(\.0) == [2])
    }
}
