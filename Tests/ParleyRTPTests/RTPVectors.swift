// Hand-built RTP packets shaped like what Chromium 156 sends with the fixture offer's extmap
// ids (Tests/ParleySDPTests/Fixtures/chromium-156-offer.sdp): audio level id 1, abs-send-time
// id 2, transport-wide-cc id 3, sdes:mid id 4. Annotated field by field.

enum RTPVectors {
    /// VP8 video, one-byte extension (0xBEDE) with abs-send-time, transport-wide seq and mid.
    static let videoWithOneByteExtension: [UInt8] = [
        0x90, 0x60, 0x1a, 0x2b,  // V=2 P=0 X=1 CC=0 | M=0 PT=96 (VP8) | seq 0x1a2b = 6699
        0x00, 0x0f, 0x42, 0x40,  // timestamp 1_000_000
        0xd5, 0x09, 0x00, 0xe6,  // SSRC 3574137062 (the offer's video a=ssrc)
        0xbe, 0xde, 0x00, 0x03,  // profile 0xBEDE (one-byte form), length 3 words
        0x22, 0x12, 0x34, 0x56,  // id 2, L=2 (3 bytes): abs-send-time 0x123456
        0x31, 0x00, 0x05,        // id 3, L=1 (2 bytes): transport-wide seq 5
        0x40, 0x31,              // id 4, L=0 (1 byte): mid "1"
        0x00, 0x00, 0x00,        // padding to the word boundary
        0x90, 0x80, 0x00, 0x30,  // payload: VP8 payload descriptor (X=1 S=1, I=1, picture id)
        0x01, 0x9d, 0x01, 0x2a,  // payload: start of a VP8 key frame header
    ]

    /// Opus audio with the marker bit, two CSRCs, audio level, and 4 bytes of padding.
    static let audioWithCSRCsAndPadding: [UInt8] = [
        0xb2, 0xef, 0x00, 0x01,  // V=2 P=1 X=1 CC=2 | M=1 PT=111 (Opus) | seq 1
        0x00, 0x00, 0x03, 0xc0,  // timestamp 960
        0x16, 0x73, 0xfa, 0x7d,  // SSRC 376699517 (the offer's audio a=ssrc)
        0x00, 0x00, 0x00, 0x0a,  // CSRC 10
        0x00, 0x00, 0x00, 0x0b,  // CSRC 11
        0xbe, 0xde, 0x00, 0x01,  // profile 0xBEDE, length 1 word
        0x10, 0xaa, 0x00, 0x00,  // id 1, L=0: audio level V=1 level 42 (−42 dBov), then padding
        0xfc, 0xff, 0xfe,        // payload: an Opus TOC byte and two more
        0x00, 0x00, 0x00, 0x04,  // RTP padding, count 4 in the last byte
    ]

    /// Two-byte extension form (0x1000): id 15 with 0 bytes, id 200 with 3 bytes.
    static let twoByteExtension: [UInt8] = [
        0x90, 0x60, 0x00, 0x07,  // V=2 X=1 | PT=96 | seq 7
        0x00, 0x00, 0x00, 0x00,  // timestamp 0
        0x00, 0x00, 0x00, 0x01,  // SSRC 1
        0x10, 0x00, 0x00, 0x02,  // profile 0x1000 (two-byte form, appbits 0), length 2 words
        0x0f, 0x00,              // id 15, length 0
        0xc8, 0x03, 0x61, 0x62,  // id 200, length 3: "abc"...
        0x63, 0x00,              // ..."c", then one padding byte
        0xde, 0xad,              // payload
    ]
}
