/// The abs-send-time RTP header extension
/// (http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time): three octets, the send time in
/// seconds as 6.18 fixed point, wrapping every 64 s. WebRTC stamps it from its own clock as the
/// packet leaves; here the clock is a process-wide epoch, so every client in one process (the
/// relay tests, the load test) stamps and reads the same time base and one-way latency is
/// (received − sent) mod 64 s.
enum AbsSendTime {
    static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time"
    /// Length of the extension value.
    static let size = 3
    /// 2¹⁸ units per second.
    static let unitsPerSecond = 262_144.0
    /// Zero of the clock shared by every client in the process.
    static let epoch = ContinuousClock.now

    /// The 24-bit value for `instant`, rounded to the nearest unit as WebRTC does.
    static func value(at instant: ContinuousClock.Instant) -> UInt32 {
        let elapsed = (instant - epoch).components
        let whole = elapsed.seconds &* 262_144
        let fraction = Int64((Double(elapsed.attoseconds) / 1e18 * unitsPerSecond).rounded())
        return UInt32(truncatingIfNeeded: whole &+ fraction) & 0xFF_FFFF
    }

    /// Seconds from a packet stamped `sent` to `now`, modulo 64 s.
    static func latency(sent: UInt32, receivedAt now: ContinuousClock.Instant) -> Double {
        Double((value(at: now) &- sent) & 0xFF_FFFF) / unitsPerSecond
    }

    /// Writes `value` big-endian into the three octets at `offset`.
    static func write(_ value: UInt32, into buffer: inout [UInt8], at offset: Int) {
        buffer[offset] = UInt8(truncatingIfNeeded: value >> 16)
        buffer[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
        buffer[offset + 2] = UInt8(truncatingIfNeeded: value)
    }
}
