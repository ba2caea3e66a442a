import ParleyRTP
import Testing

/// The relay's one look into VP8 (RFC 7741 §4.2–4.3): does this payload start a key frame?
struct VP8KeyFrameTests {
    func starts(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { VP8KeyFrame.starts($0) } }

    @Test func keyFramesAreFoundBehindEveryDescriptorForm() {
        #expect(starts([0x10, 0x50, 0x2a, 0x00]))                    // S, PID 0, no X; P=0
        #expect(starts([0x90, 0x80, 0x05, 0x10, 0x02]))              // X, I with a 7-bit PictureID
        #expect(starts([0x90, 0x80, 0x85, 0x01, 0x10, 0x02]))        // X, I with a 15-bit PictureID
        #expect(starts([0x90, 0xe0, 0x85, 0x01, 0x07, 0x20, 0x10]))  // X, I (15 bits), L, T
        #expect(starts([0x90, 0x10, 0x20, 0x10]))                    // X, K only
    }

    @Test func interFramesContinuationsAndShortPayloadsAreNot() {
        #expect(!starts([0x10, 0x51]))                               // P=1: an inter frame
        #expect(!starts([0x90, 0x80, 0x85, 0x01, 0x11]))             // the same behind a long PictureID
        #expect(!starts([0x00, 0x50]))                               // S=0: not the frame's first packet
        #expect(!starts([0x11, 0x50]))                               // PID 1: not partition 0
        #expect(!starts([]))
        #expect(!starts([0x10]))
        #expect(!starts([0x90]))
        #expect(!starts([0x90, 0x80]))
        #expect(!starts([0x90, 0x80, 0x85, 0x01]))
    }
}
