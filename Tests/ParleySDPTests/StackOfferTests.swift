import Testing
@testable import ParleySDP

/// Offers from the WebRTC stacks in Fixtures/ (SOURCES.md says where each comes from): each is
/// parsed, answered, and the answer parsed back and held to what JSEP (RFC 8829 §5.3.1) and
/// BUNDLE (RFC 8843) ask of every m-section.
@Suite("Answering offers from other WebRTC stacks")
struct StackOfferTests {
    let relay = SDPRelayParameters(
        iceUfrag: "prly", icePwd: "relaypasswordrelaypassword", fingerprintSHA256: AnswerTests.fingerprint,
        address: "203.0.113.5", port: 50000, sessionID: 42, sessionVersion: 1)

    /// What the answer to one stack's offer must hold besides the common rules.
    struct Expectation: Sendable, CustomTestStringConvertible {
        var file: String
        /// Per m-section, in order: the payload type kept, or nil for a rejected section.
        var payloadTypes: [UInt8?]
        var bundle: [String]
        var fingerprintAlgorithm = "sha-256"
        var testDescription: String { file }
    }

    static let stacks: [Expectation] = [
        Expectation(file: "firefox-99-max-bundle-offer.sdp", payloadTypes: [109, 120], bundle: ["0", "1"]),
        Expectation(file: "safari-offer.sdp", payloadTypes: [111, 106], bundle: ["0", "1"]),
        Expectation(file: "libdatachannel-obs-offer.sdp", payloadTypes: [111, nil], bundle: ["0"]),
        Expectation(file: "libwebrtc-android-offer.sdp", payloadTypes: [96, 111, nil], bundle: ["0", "1"]),
        Expectation(file: "libwebrtc-ios-offer.sdp", payloadTypes: [111, 100], bundle: ["0", "1"]),
        Expectation(file: "pion-v4-offer.sdp", payloadTypes: [111, 96], bundle: ["0", "1"]),
        Expectation(file: "gstreamer-webrtcbin-max-bundle-offer.sdp", payloadTypes: [96, 97], bundle: ["video0", "audio1"]),
        Expectation(file: "janus-videoroom-offer.sdp", payloadTypes: [111, 96], bundle: ["0", "1"]),
        Expectation(file: "jitsi-videobridge-offer.sdp", payloadTypes: [111, 100, nil], bundle: ["audio", "video"],
                    fingerprintAlgorithm: "sha-1"),
        Expectation(file: "chromium-156-offer.sdp", payloadTypes: [111, 96], bundle: ["0", "1"]),
        Expectation(file: "aiortc-1.16-offer.sdp", payloadTypes: [96, 97], bundle: ["0", "1"]),
    ]

    @Test("parse → answer → parse back: every section as JSEP and BUNDLE require", arguments: stacks)
    func answer(_ stack: Expectation) throws {
        let offer = try SessionDescription(parsing: Fixture.text(stack.file))
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        let parsed = try SessionDescription(parsing: answer.sdp)
        #expect(parsed == answer.session)
        Self.expectJSEPRules(offer: offer, answer: parsed)

        #expect(parsed.media.map { $0.port == 0 ? nil : $0.payloadTypes.first } == stack.payloadTypes)
        #expect(parsed.bundleMids == stack.bundle)
        #expect(answer.negotiation.bundleMids == stack.bundle)
        for media in answer.negotiation.accepted {
            #expect(media.remoteFingerprint?.algorithm == stack.fingerprintAlgorithm)
            #expect(media.remoteICEUfrag != nil && media.remoteICEPwd != nil)
            #expect(media.localSetup == .passive)
            #expect(media.localDirection == media.remoteDirection.reversed)
        }
    }

    /// The rules each answer section is held to, whatever the stack.
    static func expectJSEPRules(offer: SessionDescription, answer: SessionDescription,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        // RFC 3264 §6: one answer section per offered one, same media type, same order.
        #expect(answer.media.map(\.type) == offer.media.map(\.type), sourceLocation: sourceLocation)
        let group = answer.bundleMids ?? []
        // RFC 8843 §7.3: the answer's group only has mids the offer grouped, in the offer's order.
        let offeredGroup = offer.bundleMids ?? []
        #expect(group == offeredGroup.filter(group.contains), sourceLocation: sourceLocation)
        #expect(answer.iceLite, sourceLocation: sourceLocation)
        var setups: Set<String> = []
        for (offered, section) in zip(offer.media, answer.media) {
            let mid = offered.mid ?? "?"
            // JSEP §5.3.1: the offer's mid, always, accepted or not.
            #expect(section.mid == offered.mid, "mid \(mid)", sourceLocation: sourceLocation)
            // bundle-only belongs to offers (RFC 8843 §6); an answer's sections are in or out.
            #expect(!section.bundleOnly, "mid \(mid)", sourceLocation: sourceLocation)
            if section.port == 0 {
                // Rejected: out of the group, nothing about a transport (RFC 8843 §7.3.3).
                #expect(!group.contains(mid), "rejected \(mid) is bundled", sourceLocation: sourceLocation)
                for name in ["ice-ufrag", "ice-pwd", "fingerprint", "setup", "candidate", "rtcp-mux", "rtpmap"] {
                    #expect(!section.has(name), "rejected \(mid) has a=\(name)", sourceLocation: sourceLocation)
                }
                continue
            }
            // Accepted: bundled, with the full transport (JSEP §5.3.1, RFC 8842 §5).
            #expect(group.contains(mid), "accepted \(mid) not bundled", sourceLocation: sourceLocation)
            #expect(section.iceUfrag == "prly" && section.icePwd == "relaypasswordrelaypassword",
                    "mid \(mid)", sourceLocation: sourceLocation)
            #expect(section.fingerprints.map(\.algorithm) == ["sha-256"], "mid \(mid)", sourceLocation: sourceLocation)
            let setup = section.setup
            #expect(setup == .passive || setup == .active, "mid \(mid): \(String(describing: setup))",
                    sourceLocation: sourceLocation)
            setups.insert(setup?.rawValue ?? "none")
            #expect(section.rtcpMux, "mid \(mid)", sourceLocation: sourceLocation)
            #expect(!section.candidates.isEmpty && section.endOfCandidates, "mid \(mid)", sourceLocation: sourceLocation)
            #expect(section.payloadTypes.count == 1, "mid \(mid): one codec", sourceLocation: sourceLocation)
            #expect(section.payloadTypes.allSatisfy(offered.payloadTypes.contains), "mid \(mid)", sourceLocation: sourceLocation)
            #expect(section.explicitDirection == offered.direction.reversed, "mid \(mid)", sourceLocation: sourceLocation)
            #expect(section.proto == offered.proto, sourceLocation: sourceLocation)
        }
        // One transport, one DTLS role.
        #expect(setups.count <= 1, "\(setups)", sourceLocation: sourceLocation)
    }

    @Test("A bundle-only section is accepted with its own port, not rejected, and without a=bundle-only")
    func bundleOnlyAccepted() throws {
        let offer = try SessionDescription(parsing: Fixture.firefoxMaxBundle())
        #expect(offer.media[1].port == 0 && offer.media[1].bundleOnly)
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        #expect(answer.negotiation.media.map(\.rejection) == [nil, nil])
        #expect(answer.session.media.map(\.port) == [50000, 50000])
        let video = try #require(answer.negotiation.media(mid: "1"))
        #expect(video.codec?.name == "VP8")
        #expect(video.codec?.formatParameters == "max-fs=12288;max-fr=60")
        #expect(video.codec?.rtcpFeedback == ["nack", "nack pli", "ccm fir", "goog-remb", "transport-cc"])
        #expect(video.remotePrimarySSRC == 1_713_748_556)
        #expect(video.remoteFingerprint?.value.hasPrefix("AC:BC:60") == true)  // session level
        // Firefox's audio is sendonly: the relay only receives it.
        #expect(answer.negotiation.media[0].localDirection == .recvonly)
        #expect(answer.session.media[0].ssrcs.isEmpty)
    }

    @Test("A bundle-only section without transport attributes shares the offerer-tagged section's")
    func bundleOnlyInheritsTransport() throws {
        var offer = try SessionDescription(parsing: Fixture.firefoxMaxBundle())
        offer.media[1].attributes.removeAll { ["ice-ufrag", "ice-pwd", "setup", "fingerprint"].contains($0.name) }
        offer.media[0].attributes.append(SDPAttribute("fingerprint", "sha-384 " + Array(repeating: "0A", count: 48).joined(separator: ":")))
        offer.attributes.removeAll { $0.name == "fingerprint" }
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        let video = try #require(answer.negotiation.media(mid: "1"))
        #expect(video.isAccepted)
        #expect(video.remoteICEUfrag == "a42bbe2e")
        #expect(video.remoteICEPwd == "6fa4556ab1fc0ad7adf0750f0a9d75d5")
        #expect(video.remoteSetup == .actpass)
        #expect(video.remoteFingerprint?.algorithm == "sha-384")
        Self.expectJSEPRules(offer: offer, answer: try SessionDescription(parsing: answer.sdp))
    }

    @Test("Port 0 stays a rejection without a=bundle-only, or when the section is outside BUNDLE")
    func portZeroRejections() throws {
        let text = try Fixture.firefoxMaxBundle()
        for variant in [text.replacingOccurrences(of: "a=bundle-only\r\n", with: ""),
                        text.replacingOccurrences(of: "a=group:BUNDLE 0 1", with: "a=group:BUNDLE 0")] {
            let offer = try SessionDescription(parsing: variant)
            let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
            #expect(answer.negotiation.media.map(\.rejection) == [nil, .rejectedInOffer])
            #expect(answer.negotiation.bundleMids == ["0"])
            Self.expectJSEPRules(offer: offer, answer: try SessionDescription(parsing: answer.sdp))
        }
    }

    @Test("a=setup: passive gets active (the relay is the DTLS client), active and actpass get passive, holdconn throws",
          arguments: [("actpass", SDPSetupRole.passive), ("active", .passive), ("passive", .active)])
    func setupRoles(offered: String, answered: SDPSetupRole) throws {
        let text = try Fixture.chromium().replacingOccurrences(of: "a=setup:actpass", with: "a=setup:\(offered)")
        let offer = try SessionDescription(parsing: text)
        let answer = try SDPAnswerer.answer(offer: offer, relay: relay)
        #expect(answer.negotiation.accepted.map(\.localSetup) == [answered, answered])
        #expect(answer.session.media.map(\.setup) == [answered, answered])
        Self.expectJSEPRules(offer: offer, answer: try SessionDescription(parsing: answer.sdp))
    }

    @Test("a=setup:holdconn cannot carry a call")
    func holdconn() throws {
        let text = try Fixture.chromium().replacingOccurrences(of: "a=setup:actpass", with: "a=setup:holdconn")
        #expect(throws: SDPAnswerError.unsupportedSetup(mid: "0", role: .holdconn)) {
            try SDPAnswerer.answer(offer: SessionDescription(parsing: text), relay: relay)
        }
    }

    @Test("The fingerprint checked is SHA-256 when offered, else the strongest SHA, else SHA-1")
    func fingerprintChoice() {
        func pick(_ algorithms: [String]) -> String? {
            var media = NegotiatedMedia(
                index: 0, mid: "0", kind: .audio, rejection: nil, codec: nil, headerExtensions: [], remoteSSRCs: [],
                remoteSSRCGroups: [], remoteCNAME: nil, remoteDirection: .sendrecv, localDirection: .sendrecv,
                remoteICEUfrag: nil, remoteICEPwd: nil, remoteFingerprints: [], remoteSetup: nil, localSetup: .passive,
                localStream: nil)
            media.remoteFingerprints = algorithms.map { SDPFingerprint(algorithm: $0, value: "AB") }
            return media.remoteFingerprint?.algorithm
        }
        #expect(pick(["sha-1", "sha-512", "sha-256"]) == "sha-256")
        #expect(pick(["sha-1", "sha-512", "sha-384"]) == "sha-384")
        #expect(pick(["sha-1", "sha-512"]) == "sha-512")
        #expect(pick(["md5", "sha-1"]) == "sha-1")
        #expect(pick(["md5"]) == "md5")
        #expect(pick([]) == nil)
    }
}
