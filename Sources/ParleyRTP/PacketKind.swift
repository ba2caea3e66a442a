/// What a datagram on the shared media port is, judged by its first byte (RFC 7983 §7).
///
/// ```
///              +----------------+
///              |        [0..3] -+--> STUN
///              |      [16..19] -+--> ZRTP
/// packet -->   |      [20..63] -+--> DTLS
///              |      [64..79] -+--> TURN channel
///              |    [128..191] -+--> RTP/RTCP
///              +----------------+
/// ```
public enum PacketKind: Sendable, Hashable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    /// RTP or RTCP (SRTP/SRTCP on a WebRTC transport); tell them apart with ``isRTCP(secondByte:)``.
    case rtpOrRTCP
    /// Anything else: drop it.
    case unknown

    /// Classifies a datagram by its first byte (RFC 7983 §7).
    @inlinable
    public static func classify(firstByte: UInt8) -> PacketKind {
        switch firstByte {
        case 0...3: return .stun
        case 16...19: return .zrtp
        case 20...63: return .dtls
        case 64...79: return .turnChannel
        case 128...191: return .rtpOrRTCP
        default: return .unknown
        }
    }

    /// Whether an RTP/RTCP datagram is RTCP, by its second byte (RFC 5761 §4): RTCP packet types
    /// 192–223 sit where RTP's marker bit plus payload types 64–95 would, which RTP avoids.
    @inlinable
    public static func isRTCP(secondByte: UInt8) -> Bool {
        (192...223).contains(secondByte)
    }
}
