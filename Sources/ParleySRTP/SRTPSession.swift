import CParleyShim
import CSRTP

/// Which way an ``SRTPSession`` carries packets, from the relay's point of view.
public enum SRTPDirection: Sendable, Hashable {
    /// Packets from the peer: ``SRTPSession/unprotectRTP(_:length:)`` and
    /// ``SRTPSession/unprotectRTCP(_:length:)``. Accepts any SSRC (`ssrc_any_inbound`).
    case inbound
    /// Packets to the peer: ``SRTPSession/protectRTP(_:length:)`` and
    /// ``SRTPSession/protectRTCP(_:length:)``. Any SSRC (`ssrc_any_outbound`).
    case outbound
}

/// One direction of SRTP/SRTCP (RFC 3711, RFC 7714) for one leg, over a libsrtp2 session.
///
/// - Replay protection is on, with libsrtp's default window of 128 packets per SSRC
///   (RFC 3711 §3.3.2 asks for at least 64); `allow_repeat_tx` is off unless asked for, so
///   protecting the same sequence number twice on one SSRC also reports ``SRTPStatus/replayFail``
///   — a sender that resends a packet as it was (a NACK answered without RTX, as libwebrtc does)
///   asks for it.
/// - libsrtp keeps one stream per SSRC, cloned from the session's template the first time an
///   SSRC is seen (inbound: only once the first packet authenticates, so garbage never creates
///   streams). That clone is the only allocation; every later packet is processed in place.
/// - Packets are transformed in place in a caller-owned buffer. `protect` grows the packet by
///   ``SRTPProfile/rtpOverhead`` / ``SRTPProfile/rtcpOverhead`` bytes, so the buffer must have
///   that much room after it; `unprotect` shrinks it.
/// - Noncopyable: the session has one owner, who calls it from one thread at a time; that is
///   also why it may be sent between threads.
public struct SRTPSession: ~Copyable, @unchecked Sendable {
    private let context: srtp_t
    public let profile: SRTPProfile
    public let direction: SRTPDirection

    /// Creates a session for `direction` from a master key and salt of `profile`'s lengths;
    /// `allowsRepeatTransmission` lets an outbound session protect a sequence number again.
    public init(profile: SRTPProfile, key: SRTPMasterKey, direction: SRTPDirection,
                allowsRepeatTransmission: Bool = false) throws(SRTPError) {
        let initStatus = SRTPLibrary.initStatus
        guard initStatus == srtp_err_status_ok else { throw .libraryInitFailed(initStatus.rawValue) }
        guard key.fits(profile) else {
            throw .badKeyLength(profile: profile, keyLength: key.key.count, saltLength: key.salt.count)
        }

        var policy = srtp_policy_t()
        switch profile {
        case .aes128CMHMACSHA1_80:
            parley_srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtp)
            parley_srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&policy.rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp)
        }
        policy.ssrc.type = direction == .inbound ? ssrc_any_inbound : ssrc_any_outbound
        policy.window_size = 0  // libsrtp's default (128)
        policy.allow_repeat_tx = allowsRepeatTransmission ? 1 : 0
        policy.next = nil

        // libsrtp reads the key as master key immediately followed by master salt, and derives
        // the session keys inside srtp_create; it keeps no pointer to this buffer.
        var keyAndSalt = key.key + key.salt
        var created: srtp_t?
        let status = keyAndSalt.withUnsafeMutableBufferPointer { buffer in
            policy.key = buffer.baseAddress
            return srtp_create(&created, &policy)
        }
        for index in keyAndSalt.indices { keyAndSalt[index] = 0 }
        guard status == srtp_err_status_ok, let created else { throw .createFailed(status.rawValue) }
        context = created
        self.profile = profile
        self.direction = direction
    }

    deinit {
        srtp_dealloc(context)
    }

    /// Encrypts and authenticates the RTP packet in `buffer[0..<length]` (RFC 3711 §3.3,
    /// RFC 7714 §7) and sets `length` to the SRTP packet's length. Needs
    /// ``SRTPProfile/rtpOverhead`` spare bytes in `buffer` after the packet.
    public mutating func protectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: inout Int) -> SRTPStatus {
        guard direction == .outbound else { return .badParameter }
        return transform(buffer, &length, minimum: 12, room: profile.rtpOverhead, srtp_protect)
    }

    /// Verifies and decrypts the SRTP packet in `buffer[0..<length]` (RFC 3711 §3.3,
    /// RFC 7714 §7) and sets `length` to the RTP packet's length. The replay check comes before
    /// authentication in libsrtp, so a replayed forgery reports a replay, not an auth failure.
    public mutating func unprotectRTP(_ buffer: UnsafeMutableRawBufferPointer, length: inout Int) -> SRTPStatus {
        guard direction == .inbound else { return .badParameter }
        return transform(buffer, &length, minimum: 12 + profile.authTagLength, room: 0, srtp_unprotect)
    }

    /// Encrypts and authenticates the (compound) RTCP packet in `buffer[0..<length]`
    /// (RFC 3711 §3.4, RFC 7714 §9). Needs ``SRTPProfile/rtcpOverhead`` spare bytes.
    public mutating func protectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: inout Int) -> SRTPStatus {
        guard direction == .outbound else { return .badParameter }
        return transform(buffer, &length, minimum: 8, room: profile.rtcpOverhead, srtp_protect_rtcp)
    }

    /// Verifies and decrypts the SRTCP packet in `buffer[0..<length]` (RFC 3711 §3.4,
    /// RFC 7714 §9).
    public mutating func unprotectRTCP(_ buffer: UnsafeMutableRawBufferPointer, length: inout Int) -> SRTPStatus {
        guard direction == .inbound else { return .badParameter }
        return transform(buffer, &length, minimum: 8 + profile.rtcpOverhead, room: 0, srtp_unprotect_rtcp)
    }

    /// Frees the stream libsrtp keeps for `ssrc` (cloned from the template when the SSRC's first
    /// packet authenticated, see above), for an SSRC its owner refuses: a peer that holds the keys
    /// and cycles SSRCs then cannot grow the session — nor the list libsrtp searches for every
    /// packet. Returns whether there was one.
    @discardableResult
    public mutating func removeStream(ssrc: UInt32) -> Bool {
        srtp_remove_stream(context, ssrc.bigEndian) == srtp_err_status_ok
    }

    /// Bounds checks shared by the four operations, then one libsrtp call; no allocation.
    @inline(__always)
    private func transform(
        _ buffer: UnsafeMutableRawBufferPointer, _ length: inout Int, minimum: Int, room: Int,
        _ operation: (srtp_t?, UnsafeMutableRawPointer?, UnsafeMutablePointer<Int32>?) -> srtp_err_status_t
    ) -> SRTPStatus {
        guard let base = buffer.baseAddress, length >= minimum, length <= buffer.count else { return .badParameter }
        guard buffer.count - length >= room else { return .bufferTooSmall }
        guard length <= Int(Int32.max) - room else { return .badParameter }
        var cLength = Int32(length)
        let status = operation(context, base, &cLength)
        guard status == srtp_err_status_ok else { return SRTPStatus(status) }
        length = Int(cLength)
        return .ok
    }
}
