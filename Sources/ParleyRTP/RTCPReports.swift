/// A reception report block (RFC 3550 §6.4.1), 24 bytes in SR and RR packets.
public struct RTCPReportBlock: Sendable, Hashable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the last report, in 1/256ths.
    public var fractionLost: UInt8
    /// Cumulative number of packets lost, a signed 24-bit value.
    public var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles << 16 | sequence).
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR from this source (LSR).
    public var lastSenderReport: UInt32
    /// Delay since that SR, in 1/65536 s (DLSR).
    public var delaySinceLastSenderReport: UInt32

    public init(ssrc: UInt32, fractionLost: UInt8 = 0, cumulativeLost: Int32 = 0, extendedHighestSequence: UInt32 = 0,
                jitter: UInt32 = 0, lastSenderReport: UInt32 = 0, delaySinceLastSenderReport: UInt32 = 0) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    static let size = 24

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        let lost = bytes.readBE24(at: offset + 5)
        self.init(
            ssrc: bytes.readBE32(at: offset),
            fractionLost: bytes[offset + 4],
            cumulativeLost: Int32(bitPattern: lost & 0x80_0000 != 0 ? lost | 0xFF00_0000 : lost),
            extendedHighestSequence: bytes.readBE32(at: offset + 8),
            jitter: bytes.readBE32(at: offset + 12),
            lastSenderReport: bytes.readBE32(at: offset + 16),
            delaySinceLastSenderReport: bytes.readBE32(at: offset + 20))
    }

    func append(to out: inout [UInt8]) {
        out.appendBE32(ssrc)
        out.append(fractionLost)
        let lost = UInt32(bitPattern: min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)) & 0xFF_FFFF
        out.append(UInt8(lost >> 16))
        out.appendBE16(UInt16(lost & 0xFFFF))
        out.appendBE32(extendedHighestSequence)
        out.appendBE32(jitter)
        out.appendBE32(lastSenderReport)
        out.appendBE32(delaySinceLastSenderReport)
    }

    static func parseList(_ bytes: UnsafeRawBufferPointer, from offset: Int, count: Int) -> [RTCPReportBlock] {
        (0..<count).map { RTCPReportBlock(bytes, at: offset + $0 * size) }
    }
}

/// A sender report, PT 200 (RFC 3550 §6.4.1): sender info plus reception reports.
public struct RTCPSenderReport: Sendable, Hashable {
    public var ssrc: UInt32
    /// 64-bit NTP timestamp of when the report was sent.
    public var ntpTimestamp: UInt64
    /// The same instant in the RTP timestamp units of the source.
    public var rtpTimestamp: UInt32
    public var packetCount: UInt32
    public var octetCount: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, ntpTimestamp: UInt64, rtpTimestamp: UInt32, packetCount: UInt32, octetCount: UInt32,
                reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.ntpTimestamp = ntpTimestamp
        self.rtpTimestamp = rtpTimestamp
        self.packetCount = packetCount
        self.octetCount = octetCount
        self.reports = reports
    }

    static func minimumBody(count: UInt8) -> Int { 24 + RTCPReportBlock.size * Int(count) }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        self.init(
            ssrc: bytes.readBE32(at: base),
            ntpTimestamp: UInt64(bytes.readBE32(at: base + 4)) << 32 | UInt64(bytes.readBE32(at: base + 8)),
            rtpTimestamp: bytes.readBE32(at: base + 12),
            packetCount: bytes.readBE32(at: base + 16),
            octetCount: bytes.readBE32(at: base + 20),
            reports: RTCPReportBlock.parseList(bytes, from: base + 24, count: Int(view.count)))
    }
}

/// A receiver report, PT 201 (RFC 3550 §6.4.2).
public struct RTCPReceiverReport: Sendable, Hashable {
    /// The reporter's SSRC.
    public var ssrc: UInt32
    public var reports: [RTCPReportBlock]

    public init(ssrc: UInt32, reports: [RTCPReportBlock] = []) {
        self.ssrc = ssrc
        self.reports = reports
    }

    static func minimumBody(count: UInt8) -> Int { 4 + RTCPReportBlock.size * Int(count) }

    init(_ view: RTCPPacketView, in bytes: UnsafeRawBufferPointer) {
        let base = view.bodyRange.lowerBound
        self.init(ssrc: bytes.readBE32(at: base),
                  reports: RTCPReportBlock.parseList(bytes, from: base + 4, count: Int(view.count)))
    }
}
