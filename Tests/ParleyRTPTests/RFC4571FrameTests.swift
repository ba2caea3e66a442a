import Testing
import ParleyRTP

/// RFC 4571 §2: a 16-bit big-endian LENGTH, then that many bytes — however a stream cuts them.
@Suite("RFC 4571 framing")
struct RFC4571FrameTests {
    private func next(_ bytes: [UInt8], max: Int = 2048) -> RFC4571Frame.Next {
        bytes.withUnsafeBytes { RFC4571Frame.next(in: $0, maxLength: max) }
    }

    @Test("a whole frame: the length, then exactly that many bytes")
    func whole() {
        #expect(next([0x00, 0x03, 0xAA, 0xBB, 0xCC]) == .frame(length: 3))
        #expect(RFC4571Frame.framed([0xAA, 0xBB, 0xCC]) == [0x00, 0x03, 0xAA, 0xBB, 0xCC])
        #expect(RFC4571Frame.framed(Array(repeating: 7, count: 0x0123))?.prefix(2) == [0x01, 0x23])
    }

    @Test("split: a header or a packet cut anywhere is incomplete until its last byte")
    func split() {
        let frame = RFC4571Frame.framed(Array(0..<20))!
        for cut in 0..<frame.count {
            #expect(next(Array(frame.prefix(cut))) == .incomplete, "cut at \(cut)")
        }
        #expect(next(frame) == .frame(length: 20))
    }

    @Test("coalesced: frames back to back are read one after the other")
    func coalesced() {
        let stream = RFC4571Frame.framed([1, 2])! + RFC4571Frame.framed([3, 4, 5])! + RFC4571Frame.framed([])! + [0x00]
        var rest = stream[...]
        var packets: [[UInt8]] = []
        while case .frame(let length) = next(Array(rest)) {
            packets.append(Array(rest.dropFirst(2).prefix(length)))
            rest = rest.dropFirst(2 + length)
        }
        #expect(packets == [[1, 2], [3, 4, 5], []])
        #expect(Array(rest) == [0x00], "half a header left for the next read")
    }

    @Test("zero length is a frame of no bytes (the reader drops the empty packet)")
    func zeroLength() {
        #expect(next([0x00, 0x00]) == .frame(length: 0))
        #expect(next([0x00, 0x00, 0x00, 0x01, 0xFF]) == .frame(length: 0))
    }

    @Test("oversize: a length over the reader's limit is refused at the header, before the body")
    func oversize() {
        #expect(next([0x08, 0x01]) == .tooLong(2049))
        #expect(next([0xFF, 0xFF]) == .tooLong(65_535))
        #expect(next([0x08, 0x00]) == .incomplete, "2048 is allowed: wait for the body")
        #expect(next([0x08, 0x00], max: 65_535) == .incomplete)
        #expect(RFC4571Frame.header(length: 65_536) == nil)
        #expect(RFC4571Frame.header(length: -1) == nil)
        #expect(RFC4571Frame.framed(Array(repeating: 0, count: 65_536)) == nil)
    }
}
