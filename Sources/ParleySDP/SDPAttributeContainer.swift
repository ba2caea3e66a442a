/// Typed views of the `a=` lines of a session or a media section (RFC 8866 §6 and the RFCs
/// cited on each). Malformed lines are skipped here; the parser has already rejected them.
public protocol SDPAttributeContainer {
    var attributes: [SDPAttribute] { get set }
}

extension SDPAttributeContainer {
    /// Values of every attribute called `name` (nil for a property attribute), in order.
    public func values(of name: String) -> [String?] {
        attributes.filter { $0.name == name }.map(\.value)
    }

    /// The value of the first attribute called `name`.
    public func value(of name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Whether an attribute called `name` is present.
    public func has(_ name: String) -> Bool {
        attributes.contains { $0.name == name }
    }

    private func parsed<T>(_ name: String, _ parse: (String) -> T?) -> [T] {
        attributes.compactMap { $0.name == name ? $0.value.flatMap(parse) : nil }
    }

    /// `a=mid` (RFC 5888 §4).
    public var mid: String? { value(of: "mid") }
    /// `a=ice-ufrag` (RFC 8839 §5.4).
    public var iceUfrag: String? { value(of: "ice-ufrag") }
    /// `a=ice-pwd` (RFC 8839 §5.4).
    public var icePwd: String? { value(of: "ice-pwd") }
    /// `a=ice-options` tokens, e.g. ["trickle"] (RFC 8839 §5.6).
    public var iceOptions: [String] { values(of: "ice-options").flatMap { ($0 ?? "").split(separator: " ").map(String.init) } }
    /// `a=ice-lite` (RFC 8839 §5.3).
    public var iceLite: Bool { has("ice-lite") }
    /// `a=fingerprint` lines, in order (RFC 8122 §5).
    public var fingerprints: [SDPFingerprint] { parsed("fingerprint", SDPFingerprint.init) }
    /// `a=setup` (RFC 4145 §4).
    public var setup: SDPSetupRole? { value(of: "setup").flatMap(SDPSetupRole.init(rawValue:)) }
    /// `a=candidate` lines (RFC 8839 §5.1).
    public var candidates: [SDPCandidate] { parsed("candidate", SDPCandidate.init) }
    /// `a=end-of-candidates` (RFC 8840 §8.2).
    public var endOfCandidates: Bool { has("end-of-candidates") }
    /// The direction attribute, if one is present (RFC 8866 §6.7).
    public var explicitDirection: SDPDirection? {
        attributes.lazy.compactMap { $0.value == nil ? SDPDirection(rawValue: $0.name) : nil }.first
    }
    /// The direction, sendrecv when none is given (RFC 8866 §6.7.3).
    public var direction: SDPDirection { explicitDirection ?? .sendrecv }
    /// `a=rtpmap` lines (RFC 8866 §6.6).
    public var rtpMaps: [SDPRTPMap] { parsed("rtpmap", SDPRTPMap.init) }
    /// The `a=rtpmap` for `payloadType`.
    public func rtpMap(for payloadType: UInt8) -> SDPRTPMap? { rtpMaps.first { $0.payloadType == payloadType } }
    /// `a=fmtp` lines (RFC 8866 §6.15).
    public var formatParameters: [SDPFormatParameters] { parsed("fmtp", SDPFormatParameters.init) }
    /// The `a=fmtp` for `payloadType`.
    public func formatParameters(for payloadType: UInt8) -> SDPFormatParameters? {
        formatParameters.first { $0.payloadType == payloadType }
    }
    /// `a=rtcp-fb` lines (RFC 4585 §4.2).
    public var rtcpFeedback: [SDPRTCPFeedback] { parsed("rtcp-fb", SDPRTCPFeedback.init) }
    /// The `a=rtcp-fb` lines that apply to `payloadType`, including "*" ones.
    public func rtcpFeedback(for payloadType: UInt8) -> [SDPRTCPFeedback] {
        rtcpFeedback.filter { $0.payloadType == nil || $0.payloadType == payloadType }
    }
    /// `a=extmap` lines (RFC 8285 §5).
    public var extMaps: [SDPExtMap] { parsed("extmap", SDPExtMap.init) }
    /// `a=extmap-allow-mixed` (RFC 8285 §6).
    public var extmapAllowMixed: Bool { has("extmap-allow-mixed") }
    /// `a=ssrc` lines (RFC 5576 §4.1).
    public var ssrcAttributes: [SDPSSRCAttribute] { parsed("ssrc", SDPSSRCAttribute.init) }
    /// The distinct SSRCs of `a=ssrc` lines, in order of first appearance.
    public var ssrcs: [UInt32] {
        var seen: [UInt32] = []
        for attribute in ssrcAttributes where !seen.contains(attribute.ssrc) { seen.append(attribute.ssrc) }
        return seen
    }
    /// The CNAME given for `ssrc` (RFC 5576 §6.1).
    public func cname(for ssrc: UInt32) -> String? {
        ssrcAttributes.first { $0.ssrc == ssrc && $0.attribute == "cname" }?.value
    }
    /// `a=ssrc-group` lines (RFC 5576 §4.2).
    public var ssrcGroups: [SDPSSRCGroup] { parsed("ssrc-group", SDPSSRCGroup.init) }
    /// `a=msid` (RFC 8830 §2).
    public var msid: SDPMediaStreamID? { value(of: "msid").flatMap(SDPMediaStreamID.init) }
    /// `a=rtcp-mux` (RFC 5761 §5.1.1).
    public var rtcpMux: Bool { has("rtcp-mux") }
    /// `a=bundle-only` (RFC 8843 §6): port 0 that means "bundled", not "rejected".
    public var bundleOnly: Bool { has("bundle-only") }
    /// `a=rtcp-rsize` (RFC 5506 §5).
    public var rtcpReducedSize: Bool { has("rtcp-rsize") }
    /// `a=group` lines (RFC 5888 §5).
    public var groups: [SDPGroup] { parsed("group", SDPGroup.init) }
    /// The mids of the first BUNDLE group (RFC 8843 §7.1), if there is one.
    public var bundleMids: [String]? { groups.first { $0.semantics == "BUNDLE" }?.mids }
    /// `a=msid-semantic` trimmed, e.g. "WMS 95d9f5ac-…" (draft-ietf-mmusic-msid-05 §3).
    public var msidSemantic: String? { value(of: "msid-semantic").map { String(Substring($0).trimmingSpaces) } }
}
