import Testing
@testable import ParleyRelay

/// The packet path's plain-value view of a leg's media must answer exactly as the media does.
@Suite struct LegMediaLookupTests {
    static let ssrcs: [UInt32] = [0, 0xA1, 0xB1, 0xB2, 0xC1, 0x1234]

    func expectAgreement(_ media: LegMedia, _ lookup: LegMedia.Lookup, sourceLocation: SourceLocation = #_sourceLocation) {
        for payloadType in UInt8.min...UInt8.max {
            #expect(lookup.kind(ofPayloadType: payloadType) == media.kind(ofPayloadType: payloadType),
                    "payload type \(payloadType)", sourceLocation: sourceLocation)
        }
        for kind in RelayMediaKind.allCases {
            #expect(lookup.clockRate(of: kind) == media.clockRate(of: kind), sourceLocation: sourceLocation)
            for ssrc in Self.ssrcs {
                #expect(lookup.isPrimary(ssrc, for: kind) == media.isPrimary(ssrc, for: kind), sourceLocation: sourceLocation)
            }
        }
    }

    @Test("kind by payload type, primary SSRC and clock rate agree with LegMedia")
    func agreesWithMedia() {
        expectAgreement(ForwardingPlanTests.legA, LegMedia.Lookup(ForwardingPlanTests.legA))
        expectAgreement(ForwardingPlanTests.legB, LegMedia.Lookup(ForwardingPlanTests.legB))
        let audioOnly = LegMedia(sections: [
            LegMediaSection(kind: .audio, mid: "0", payloadType: 111, clockRate: 48000, headerExtensions: [],
                            remoteSSRCs: [], localSSRC: 1, relaySends: true),
            // A second audio section is answered but not forwarded: its payload type means nothing.
            LegMediaSection(kind: .audio, mid: "1", payloadType: 112, clockRate: 8000, headerExtensions: [],
                            remoteSSRCs: [0xC1], localSSRC: 2, relaySends: true),
        ])
        expectAgreement(audioOnly, LegMedia.Lookup(audioOnly))
    }

    @Test("a leg's lookup follows its media when an SSRC is learned")
    func followsLearnedSSRC() throws {
        let setup = try LegFactory(configuration: RelayConfiguration(host: "127.0.0.1", port: 0), port: 50000,
                                   dtlsContext: RelayEngineTests.dtlsContext)
            .makeLeg(id: .generate(), offer: Fixtures.aiortcOffer, owner: "call-1")
        let leg = setup.leg
        #expect(!leg.mediaLookup.isPrimary(0x1234, for: .video))
        leg.media.learnRemoteSSRC(0x1234, for: .video)
        #expect(leg.mediaLookup.isPrimary(0x1234, for: .video))
        #expect(leg.mediaLookup == LegMedia.Lookup(leg.media))
    }
}
