// Hand-built RTCP compound packets shaped like Chromium's, with the SSRCs of the fixture
// offer (audio 376699517 = 0x1673fa7d, video 3574137062 = 0xd50900e6, cname
// "kIqmRVxs0C2132ye"). Annotated field by field.

enum RTCPVectors {
    /// What a sending Chromium puts in one compound: SR with one report block, then SDES CNAME.
    static let senderReportAndSDES: [UInt8] = [
        // SR (RFC 3550 §6.4.1)
        0x81, 0xc8, 0x00, 0x0c,  // V=2 P=0 RC=1 | PT=200 | length 12 words (52 bytes)
        0x16, 0x73, 0xfa, 0x7d,  // sender SSRC 376699517
        0xe9, 0x4f, 0x9a, 0x6c,  // NTP timestamp, seconds
        0x2b, 0x02, 0x0c, 0x4a,  // NTP timestamp, fraction
        0x00, 0x01, 0xd4, 0xc0,  // RTP timestamp 120000
        0x00, 0x00, 0x00, 0x7d,  // sender's packet count 125
        0x00, 0x00, 0x27, 0x10,  // sender's octet count 10000
        0xd5, 0x09, 0x00, 0xe6,  // report block: SSRC 3574137062
        0x0a, 0xff, 0xff, 0xfd,  //   fraction lost 10/256 | cumulative lost −3 (24-bit signed)
        0x00, 0x01, 0x1a, 0x2b,  //   extended highest seq: 1 cycle, seq 6699
        0x00, 0x00, 0x00, 0x20,  //   interarrival jitter 32
        0x9a, 0x6c, 0x2b, 0x02,  //   last SR (LSR)
        0x00, 0x00, 0x80, 0x00,  //   delay since last SR 0.5 s (DLSR)
        // SDES (RFC 3550 §6.5)
        0x81, 0xca, 0x00, 0x06,  // V=2 P=0 SC=1 | PT=202 | length 6 words (28 bytes)
        0x16, 0x73, 0xfa, 0x7d,  // chunk SSRC 376699517
        0x01, 0x10, 0x6b, 0x49,  // CNAME, length 16: "kI
        0x71, 0x6d, 0x52, 0x56,  //   qmRV
        0x78, 0x73, 0x30, 0x43,  //   xs0C
        0x32, 0x31, 0x33, 0x32,  //   2132
        0x79, 0x65, 0x00, 0x00,  //   ye" | end of items | padding
    ]

    /// What a receiving Chromium sends: RR, then PLI, NACK, FIR, REMB and transport-cc.
    static let receiverFeedback: [UInt8] = [
        // RR (RFC 3550 §6.4.2)
        0x81, 0xc9, 0x00, 0x07,  // V=2 P=0 RC=1 | PT=201 | length 7 words (32 bytes)
        0x00, 0x00, 0x00, 0x01,  // reporter SSRC 1
        0xd5, 0x09, 0x00, 0xe6,  // report block: SSRC 3574137062
        0x00, 0x00, 0x00, 0x00,  //   fraction lost 0 | cumulative lost 0
        0x00, 0x00, 0x1a, 0x2b,  //   extended highest seq 6699
        0x00, 0x00, 0x00, 0x10,  //   jitter 16
        0x00, 0x00, 0x00, 0x00,  //   LSR (none yet)
        0x00, 0x00, 0x00, 0x00,  //   DLSR
        // PLI (RFC 4585 §6.3.1)
        0x81, 0xce, 0x00, 0x02,  // V=2 P=0 FMT=1 | PT=206 | length 2 words (12 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0xd5, 0x09, 0x00, 0xe6,  // media SSRC 3574137062
        // Generic NACK (RFC 4585 §6.2.1)
        0x81, 0xcd, 0x00, 0x03,  // V=2 P=0 FMT=1 | PT=205 | length 3 words (16 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0xd5, 0x09, 0x00, 0xe6,  // media SSRC 3574137062
        0x1a, 0x2b, 0x00, 0x05,  // PID 6699, BLP 0b101: also 6700 and 6702 lost
        // FIR (RFC 5104 §4.3.1)
        0x84, 0xce, 0x00, 0x04,  // V=2 P=0 FMT=4 | PT=206 | length 4 words (20 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x00, 0x00,  // media SSRC unused (0)
        0xd5, 0x09, 0x00, 0xe6,  // FCI: target SSRC 3574137062
        0x07, 0x00, 0x00, 0x00,  //      command seq 7 | reserved
        // REMB (draft-alvestrand-rmcat-remb-03 §2.2)
        0x8f, 0xce, 0x00, 0x05,  // V=2 P=0 FMT=15 | PT=206 | length 5 words (24 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0x00, 0x00, 0x00, 0x00,  // media SSRC unused (0)
        0x52, 0x45, 0x4d, 0x42,  // "REMB"
        0x01, 0x0b, 0xd0, 0x90,  // 1 SSRC | exp 2, mantissa 250000: 1 Mbit/s
        0xd5, 0x09, 0x00, 0xe6,  // SSRC 3574137062
        // Transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1)
        0x8f, 0xcd, 0x00, 0x05,  // V=2 P=0 FMT=15 | PT=205 | length 5 words (24 bytes)
        0x00, 0x00, 0x00, 0x01,  // sender SSRC 1
        0xd5, 0x09, 0x00, 0xe6,  // media SSRC 3574137062
        0x00, 0x05, 0x00, 0x02,  // base seq 5 | status count 2
        0x00, 0x01, 0x02, 0x00,  // reference time 258 (×64 ms) | feedback count 0
        0x20, 0x02, 0x04, 0x08,  // run-length chunk: 2 × "received, small delta" | deltas 4, 8
    ]

    /// Extended reports (RFC 3611) as Chromium sends with a=rtcp-xr:rcvr-rtt=all: an RR, an
    /// XR with a DLRR block about receiver 1 after it.
    static let receiverReportAndXR: [UInt8] = [
        0x80, 0xc9, 0x00, 0x01,  // RR, RC=0, length 1 word (8 bytes)
        0xd5, 0x09, 0x00, 0xe6,  // reporter SSRC 3574137062
        0x80, 0xcf, 0x00, 0x05,  // XR | PT=207 | length 5 words (24 bytes)
        0xd5, 0x09, 0x00, 0xe6,  // sender SSRC 3574137062
        0x05, 0x00, 0x00, 0x03,  // block type 5 (DLRR) | reserved | block length 3 words
        0x00, 0x00, 0x00, 0x01,  //   SSRC of receiver 1
        0x12, 0x34, 0x56, 0x78,  //   last RR (LRR)
        0x00, 0x00, 0x10, 0x00,  //   delay since last RR (DLRR)
    ]
}
