import ParleyHTTP
import Testing

/// `Range: bytes=…` against a file (RFC 9110 §14.1.2): what a video player asks for.
@Suite struct ByteRangeTests {
    @Test func oneRangeInEachForm() {
        #expect(ByteRange.parse("bytes=0-1", size: 100) == .part(0...1))
        #expect(ByteRange.parse("bytes=10-", size: 100) == .part(10...99))
        #expect(ByteRange.parse("bytes=-5", size: 100) == .part(95...99))
        #expect(ByteRange.parse("bytes=90-500", size: 100) == .part(90...99), "the end is clipped to the file")
        #expect(ByteRange.parse("bytes=-500", size: 100) == .part(0...99), "a suffix longer than the file is all of it")
        #expect(ByteRange.parse("Bytes=3-4", size: 100) == .part(3...4), "the unit is case-insensitive")
    }

    @Test func pastTheEndIsUnsatisfiable() {
        #expect(ByteRange.parse("bytes=100-", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=100-200", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=-0", size: 100) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-", size: 0) == .unsatisfiable)
    }

    @Test func whatIsNotSupportedGetsTheWholeFile() {
        #expect(ByteRange.parse(nil, size: 100) == .whole)
        #expect(ByteRange.parse("bytes=0-1,5-6", size: 100) == .whole)
        #expect(ByteRange.parse("items=0-1", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=5-1", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=a-b", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=", size: 100) == .whole)
        #expect(ByteRange.parse("bytes=-", size: 100) == .whole)
    }
}
