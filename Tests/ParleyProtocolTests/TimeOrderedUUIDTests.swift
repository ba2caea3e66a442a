import Foundation
import ParleyCore
import Testing

/// Message ids (UUIDv7, RFC 9562 §5.7): the layout, and that later ids sort after earlier ones.
@Suite struct TimeOrderedUUIDTests {
    @Test func theLayoutIsTimeThenVersionSevenThenTheVariantThenRandomBits() {
        #expect(TimeOrderedUUID.make(millis: 0x0123_4567_89ab, random: (0, 0)) == "01234567-89ab-7000-8000-000000000000")
        #expect(TimeOrderedUUID.make(millis: 0x0123_4567_89ab, random: (.max, .max)) == "01234567-89ab-7fff-bfff-ffffffffffff")
        let made = TimeOrderedUUID.make(at: Date(timeIntervalSince1970: 1_764_151_200.5))
        #expect(UUID(uuidString: made) != nil)
        #expect(made.hasPrefix(String(1_764_151_200_500, radix: 16).leftPadded(to: 8, 4)))
        let characters = Array(made)
        #expect(characters[14] == "7")
        #expect("89ab".contains(characters[19]))
    }

    @Test func theTextIsFoundationsForTheSameBytes() {
        // The bytes as the layout above places them, written by `UUID`: what `make` wrote before
        // it wrote the text itself.
        func reference(_ millis: UInt64, _ random: (UInt64, UInt64)) -> String {
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (40 - 8 * UInt64(index))) }
            for index in 6..<8 { bytes[index] = UInt8(truncatingIfNeeded: random.0 >> (8 * UInt64(index - 6))) }
            for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: random.1 >> (8 * UInt64(index - 8))) }
            bytes[6] = 0x70 | (bytes[6] & 0x0f)
            bytes[8] = 0x80 | (bytes[8] & 0x3f)
            let uuid = UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            return uuid.uuidString.lowercased()
        }
        var generator = SystemRandomNumberGenerator()
        let edges: [UInt64] = [0, 1, 0xffff_ffff_ffff, 0x1_0000_0000_0000, .max, 1_764_151_200_000]
        for millis in edges + (0..<3_000).map({ _ in generator.next() }) {
            let random = (generator.next() as UInt64, generator.next() as UInt64)
            #expect(TimeOrderedUUID.make(millis: millis, random: random) == reference(millis, random))
        }
    }

    @Test func laterIdsSortAfterEarlierOnesAndNoneRepeats() {
        // One millisecond apart, whatever the random bits (within one millisecond ids need not sort).
        var generator = SystemRandomNumberGenerator()
        let start: UInt64 = 1_764_151_200_000
        let ids = (0..<2_000).map { TimeOrderedUUID.make(millis: start + UInt64($0), random: (generator.next(), generator.next())) }
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "ids made a millisecond apart sort in that order")
        let earlier = TimeOrderedUUID.make(at: Date(timeIntervalSince1970: 1_764_151_200))
        #expect(earlier < MessageID.generate().rawValue)
        let many = (0..<10_000).map { _ in MessageID.generate().rawValue }
        #expect(Set(many).count == many.count)
        #expect(many.allSatisfy { UUID(uuidString: $0) != nil && $0 == $0.lowercased() })
    }
}

extension String {
    /// `self` left-padded with zeros to 12 hex digits, then split as a UUID's first two groups.
    fileprivate func leftPadded(to first: Int, _ second: Int) -> String {
        let digits = String(repeating: "0", count: max(0, first + second - count)) + self
        return digits.prefix(first) + "-" + digits.dropFirst(first)
    }
}
