import ParleyRTP
import ParleySDP

/// How packets from one leg are rewritten for another (or for itself, in an echo call): the
/// identifiers each side negotiated, precomputed when the legs are paired so the packet path only
/// reads tables and writes bytes in place.
///
/// RTP (RFC 3550 §5.1, RFC 8285): SSRC → the target's answer SSRC for that kind, payload type →
/// the target's, header extension ids → the target's ids for the same URIs (unknown ones become
/// padding), and the `sdes:mid` value → the target's mid when it has the same length (else it is
/// padded out; receivers then route by the SSRC announced in the answer). Sequence numbers and
/// timestamps pass unchanged: each outgoing SSRC has exactly one source, so they stay continuous
/// and NACKs (RFC 4585 §6.2.1) name the sender's own sequence numbers.
///
/// RTCP (RFC 3550 §6, RFC 4585 §6.1, RFC 5104 §4.3): sender SSRCs (the source client's streams)
/// become the target's answer SSRCs; media SSRCs (what the source client receives, i.e. the
/// relay's answer SSRCs on the source leg) become the target client's own SSRCs — so a PLI or
/// NACK about the relay's stream reaches the client that really sends it.
public struct ForwardingPlan: Sendable {
    struct Route: Sendable {
        var ssrc: UInt32
        var payloadType: UInt8
        var extensionIDs: RTPHeaderExtensionIDMap
        /// The source's id for `sdes:mid`, and the target's mid value.
        var sourceMidID: UInt8?
        var targetMid: [UInt8]
        /// The target's RTX payload type and the relay's RTX SSRC to it; nil without RTX.
        var rtxPayloadType: UInt8?
        var rtxSSRC: UInt32?
    }

    /// Indexed by ``RelayMediaKind/rawValue``; nil where the target takes no such media.
    private var routes: [Route?] = [nil, nil]
    public private(set) var rtcpSender = SSRCMap()
    public private(set) var rtcpMedia = SSRCMap()

    /// What became of an RTP packet.
    public enum Outcome: Sendable, Equatable {
        case forward(RelayMediaKind)
        case drop(DropReason)
    }

    public init(from source: LegMedia, to target: LegMedia) {
        var senderPairs: [(from: UInt32, to: UInt32)] = []
        var mediaPairs: [(from: UInt32, to: UInt32)] = []
        for kind in RelayMediaKind.allCases {
            guard let from = source[kind], let to = target[kind] else { continue }
            for ssrc in from.remoteSSRCs { senderPairs.append((ssrc, to.localSSRC)) }
            if let clientSSRC = to.remotePrimarySSRC { mediaPairs.append((from.localSSRC, clientSSRC)) }
            guard to.relaySends else { continue }
            var ids: [UInt8: UInt8] = [:]
            for ext in from.headerExtensions {
                if let targetID = to.extensionID(ext.uri) { ids[ext.id] = targetID }
            }
            routes[kind.rawValue] = Route(
                ssrc: to.localSSRC, payloadType: to.payloadType, extensionIDs: RTPHeaderExtensionIDMap(ids),
                sourceMidID: from.extensionID(SDPRelayParameters.HeaderExtension.mid), targetMid: Array(to.mid.utf8),
                rtxPayloadType: to.localRTXSSRC == nil ? nil : to.rtxPayloadType, rtxSSRC: to.rtxPayloadType == nil ? nil : to.localRTXSSRC)
        }
        rtcpSender = SSRCMap(senderPairs)
        rtcpMedia = SSRCMap(mediaPairs)
    }

    /// Whether the target takes `kind` at all.
    public func forwards(_ kind: RelayMediaKind) -> Bool {
        routes[kind.rawValue] != nil
    }

    /// Rewrites a decrypted RTP packet of `kind` in place; `header` was parsed from `buffer`.
    public func rewriteRTP(_ buffer: UnsafeMutableRawBufferPointer, header: RTPHeader, kind: RelayMediaKind) -> Outcome {
        guard let route = routes[kind.rawValue] else { return .drop(.noTarget) }
        RTPPacketRewriter.rewrite(buffer, ssrc: route.ssrc, payloadType: route.payloadType)
        rewriteExtensions(buffer, header: header, route: route)
        return .forward(kind)
    }

    /// What became of an RTX packet (RFC 4588).
    public enum RTXOutcome: Sendable, Equatable {
        /// Passed on as RTX, `length` bytes (unchanged).
        case retransmission(length: Int)
        /// Restored to the original packet for a target without RTX, now `length` bytes.
        case unwrapped(length: Int)
        case drop(DropReason)
    }

    /// Rewrites a decrypted video RTX packet in place; `header` was parsed from `buffer`. To a
    /// target that negotiated RTX it goes as RTX: its RTX payload type, the relay's RTX SSRC to it
    /// and `rtxSequence` (then advanced; the relay numbers each RTX stream it sends, as its own
    /// resends share it). Otherwise it becomes the original packet (RFC 4588 §4: the OSN back as
    /// the sequence number, the media payload type and SSRC), which the target's media stream
    /// takes like any late packet.
    public func rewriteRTX(_ buffer: UnsafeMutableRawBufferPointer, header: RTPHeader, rtxSequence: inout UInt16) -> RTXOutcome {
        let paddingOnly = RTPRetransmission.isPaddingOnly(header)
        guard paddingOnly || header.payloadRange.count >= RTPRetransmission.osnSize else { return .drop(.rtxTooShort) }
        guard let route = routes[RelayMediaKind.video.rawValue] else { return .drop(.noTarget) }
        if let payloadType = route.rtxPayloadType, let ssrc = route.rtxSSRC {
            RTPPacketRewriter.rewrite(buffer, ssrc: ssrc, payloadType: payloadType, sequenceNumber: rtxSequence)
            rtxSequence &+= 1
            rewriteExtensions(buffer, header: header, route: route)
            return .retransmission(length: buffer.count)
        }
        guard !paddingOnly else { return .drop(.rtxPadding) }
        // The extensions sit before the payload, so they are rewritten where they are.
        rewriteExtensions(buffer, header: header, route: route)
        guard let length = RTPRetransmission.unwrap(buffer, header: header, payloadType: route.payloadType, ssrc: route.ssrc) else {
            return .drop(.rtxTooShort)
        }
        return .unwrapped(length: length)
    }

    private func rewriteExtensions(_ buffer: UnsafeMutableRawBufferPointer, header: RTPHeader, route: Route) {
        guard header.extensionProfile != nil else { return }
        if let midID = route.sourceMidID {
            rewriteMid(buffer, header: header, sourceID: midID, targetMid: route.targetMid)
        }
        // A malformed or non-RFC 8285 extension is left alone; the receiver skips it.
        header.rewriteExtensionIDs(in: buffer, using: route.extensionIDs)
    }

    /// Rewrites the SSRCs of a decrypted RTCP compound in place; false when it is malformed.
    public func rewriteRTCP(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        RTCPRewriter.rewriteSSRCs(in: buffer, sender: rtcpSender, media: rtcpMedia)
    }

    /// Puts the target's mid into the `sdes:mid` element (RFC 8843 §15.2) when it fits exactly,
    /// otherwise turns the element into padding (RFC 8285 §4.2).
    private func rewriteMid(_ buffer: UnsafeMutableRawBufferPointer, header: RTPHeader, sourceID: UInt8, targetMid: [UInt8]) {
        let bytes = UnsafeRawBufferPointer(buffer)
        guard header.extensionIsWellFormed(in: bytes),
              let range = header.extensionValueRange(id: sourceID, in: bytes) else { return }
        if range.count == targetMid.count {
            targetMid.withUnsafeBytes { mid in
                for index in 0..<mid.count { buffer[range.lowerBound + index] = mid[index] }
            }
            return
        }
        let headerBytes = header.extensionForm == .oneByte ? 1 : 2
        for index in (range.lowerBound - headerBytes)..<range.upperBound { buffer[index] = 0 }
    }
}
