import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `trimming(_:)` gives what Foundation's `trimmingCharacters(in:)` gives, for the sets the send
/// path trims with: hand-picked ends (every kind of Unicode space and line break, combining marks,
/// characters outside the BMP) and a seeded corpus of strings built from them.
@Suite struct TrimmingTests {
    static let pieces: [String] = [
        "", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2000}", "\u{200A}", "\u{200B}",
        "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{FEFF}", "a", "Hi", "e\u{301}", "\u{301}", "🙂", "👩‍👩‍👧",
        "\u{1F1E9}\u{1F1EA}", "漢字", "c-1", "\u{0}", "\u{7F}", "x y",
    ]

    @Test(arguments: [CharacterSet.whitespaces, .whitespacesAndNewlines])
    func answersAsFoundationDoes(_ set: CharacterSet) {
        var random = SeededRandom(seed: 0x7472_696d)
        var samples = Self.pieces.flatMap { a in Self.pieces.map { b in a + "mid" + b } } + Self.pieces
        for _ in 0..<3_000 {
            let count = Int(random.next() % 6)
            samples.append((0..<count).map { _ in Self.pieces[Int(random.next() % UInt64(Self.pieces.count))] }.joined())
        }
        for sample in samples {
            #expect(sample.trimming(set) == sample.trimmingCharacters(in: set), "\(sample.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(sample.dropFirst(0).trimming(set) == sample.trimmingCharacters(in: set))
        }
    }
}
