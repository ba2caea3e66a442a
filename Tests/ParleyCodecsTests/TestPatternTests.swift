import Testing
@testable import ParleyCodecs

@Suite("Test patterns")
struct TestPatternTests {
    @Test func toneDetectorReadsRawTones() {
        for frequency in [300.0, 440, 1_000, 3_000] {
            var tone = TonePCM(frequency: frequency)
            let pcm = (0..<50).flatMap { _ in tone.nextFrame() }
            #expect(pcm.count == 48_000)
            let found = ToneDetector.dominantFrequency(pcm) ?? 0
            #expect(abs(found - frequency) < 1, "\(frequency) → \(found)")
        }
        #expect(ToneDetector.dominantFrequency([Int16](repeating: 0, count: 960)) == nil)
    }

    @Test func frameNumberReadsBackFromUncodedFrames() throws {
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        for number in [0, 1, 2, 255, 256, 4_095, 65_535, 65_536] {
            #expect(MovingPattern.readFrameNumber(from: pattern.frame(number: number)) == UInt16(truncatingIfNeeded: number))
        }
    }

    @Test func aPictureWithoutTheCodeReadsAsNil() {
        #expect(MovingPattern.readFrameNumber(from: I420Frame(width: 320, height: 240, luma: 128)) == nil)
        #expect(MovingPattern.readFrameNumber(from: I420Frame(width: 100, height: 100)) == nil)
        #expect(MovingPattern(width: 200, height: 240) == nil)
        #expect(MovingPattern(width: 321, height: 240) == nil)
    }

    @Test func theBarMoves() throws {
        let pattern = try #require(MovingPattern(width: 320, height: 240))
        #expect(pattern.frame(number: 10).y != pattern.frame(number: 11).y)
    }
}
