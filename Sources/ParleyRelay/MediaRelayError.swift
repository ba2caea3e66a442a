import ParleyCore

/// An error that reaches a caller of ``MediaRelay``; `code` is stable and snake_case.
///
/// The packet path never produces these: it counts a ``DropReason`` instead.
public struct MediaRelayError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The offer is not SDP, or lacks what every WebRTC offer has (ICE credentials, a fingerprint).
    public static func invalidOffer(_ message: String) -> MediaRelayError {
        MediaRelayError(code: "invalid_offer", message)
    }
    /// No audio/video section with Opus or VP8 over UDP/TLS/RTP/SAVPF and rtcp-mux.
    public static let noAcceptableMedia = MediaRelayError(
        code: "no_acceptable_media", "The offer has no audio or video section with Opus or VP8 the relay can accept")
    /// The leg does not exist (never created, or released).
    public static func unknownLeg(_ leg: LegID) -> MediaRelayError {
        MediaRelayError(code: "unknown_leg", "Leg \(leg) does not exist")
    }
    /// The node holds as many legs as it is configured to (`media.maxLegs`): calls go elsewhere or wait.
    public static func full(_ limit: Int) -> MediaRelayError {
        MediaRelayError(code: "relay_full", "This server carries \(limit) call legs already; try again shortly")
    }
    /// An ICE restart offer that keeps the ice-ufrag in use (RFC 8839 §4.4.1.1.1: a restart
    /// changes ufrag and pwd).
    public static let notAnICERestart = MediaRelayError(
        code: "not_an_ice_restart", "The offer keeps the ICE ufrag in use; an ICE restart needs a new ice-ufrag and ice-pwd")
    /// An ICE restart offer that changes what the leg must keep (`fingerprint_changed`,
    /// `dtls_role_changed`, `media_changed`), or a restart of a leg that no longer carries media
    /// (`leg_not_live`).
    public static func restartRefused(code: String, _ message: String) -> MediaRelayError {
        MediaRelayError(code: code, message)
    }
    /// An ICE restart offer whose media sections or codecs differ from the leg's.
    public static func mediaChanged(_ detail: String) -> MediaRelayError {
        MediaRelayError(code: "media_changed", "An ICE restart keeps the call's media, but \(detail)")
    }
    /// The relay has been shut down, or never bound its socket.
    public static let notRunning = MediaRelayError(code: "relay_not_running", "The media relay is not running")
    /// Setting up a leg failed inside the relay (DTLS endpoint, randomness): not the caller's fault.
    public static func internalFailure(_ message: String) -> MediaRelayError {
        MediaRelayError(code: "relay_failure", message)
    }

    public var description: String { "\(code): \(message)" }

    /// The same error in the shape every Parley edge turns into `{"error":{code,message}}`.
    public var parleyError: ParleyError {
        switch code {
        case "invalid_offer", "not_an_ice_restart": ParleyError(.badRequest, code: code, message)
        case "fingerprint_changed", "dtls_role_changed", "media_changed", "leg_not_live", "restart_in_progress":
            ParleyError(.conflict, code: code, message)
        case "no_acceptable_media": ParleyError(.unprocessable, code: code, message)
        case "unknown_leg": ParleyError(.notFound, code: code, message)
        case "relay_not_running": ParleyError(.unavailable, code: code, message)
        case "relay_full": ParleyError(.unavailable, code: code, message, retryAfter: 5)
        default: ParleyError(.internalFailure, code: code, message)
        }
    }
}
