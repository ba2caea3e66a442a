import Testing
@testable import ParleyRTP

@Suite("RTCP SSRC rewriting and builders")
struct RTCPRewriteAndBuildTests {
    @Test("Sender and media SSRCs are rewritten in every packet type of a compound")
    func rewriteFeedback() throws {
        var bytes = RTCPVectors.receiverFeedback
        let sender = SSRCMap([(from: 1, to: 0xAAAA_AAAA)])
        let media = SSRCMap([(from: 3_574_137_062, to: 0x0BAD_F00D)])
        #expect(RTCPRewriter.rewriteSSRCs(in: &bytes, sender: sender, media: media))
        let packets = try RTCPPacket.parseCompound(bytes).get()
        #expect(packets[0] == .receiverReport(RTCPReceiverReport(ssrc: 0xAAAA_AAAA, reports: [
            RTCPReportBlock(ssrc: 0x0BAD_F00D, extendedHighestSequence: 6699, jitter: 16)])))
        #expect(packets[1] == .pictureLossIndication(RTCPPictureLossIndication(senderSSRC: 0xAAAA_AAAA, mediaSSRC: 0x0BAD_F00D)))
        guard case .genericNACK(let nack) = packets[2] else { Issue.record("expected NACK"); return }
        #expect((nack.senderSSRC, nack.mediaSSRC) == (0xAAAA_AAAA, 0x0BAD_F00D))
        #expect(packets[3] == .fullIntraRequest(RTCPFullIntraRequest(
            senderSSRC: 0xAAAA_AAAA, entries: [.init(ssrc: 0x0BAD_F00D, sequenceNumber: 7)])))
        #expect(packets[4] == .remb(RTCPREMB(senderSSRC: 0xAAAA_AAAA, bitrate: 1_000_000, ssrcs: [0x0BAD_F00D])))
        guard case .transportWideFeedback(let twcc) = packets[5] else { Issue.record("expected TWCC"); return }
        #expect((twcc.senderSSRC, twcc.mediaSSRC) == (0xAAAA_AAAA, 0x0BAD_F00D))
        // FIR's and REMB's zero media-source fields stay zero.
        #expect(Array(bytes[68..<72]) == [0, 0, 0, 0])
        #expect(Array(bytes[88..<92]) == [0, 0, 0, 0])
    }

    @Test("SR, SDES, BYE and XR SSRCs are rewritten with their roles")
    func rewriteReports() throws {
        var bytes = RTCPVectors.senderReportAndSDES
        var seen: [(UInt32, RTCPSSRCRole)] = []
        let ok = bytes.withUnsafeMutableBytes { buffer in
            RTCPRewriter.rewriteSSRCs(in: buffer) { ssrc, role in
                seen.append((ssrc, role))
                return ssrc &+ 1
            }
        }
        #expect(ok)
        #expect(seen.map(\.0) == [376_699_517, 3_574_137_062, 376_699_517])
        #expect(seen.map(\.1) == [.sender, .media, .sender])
        let packets = try RTCPPacket.parseCompound(bytes).get()
        guard case .senderReport(let sr) = packets[0], case .sourceDescription(let sdes) = packets[1] else {
            Issue.record("expected SR + SDES"); return
        }
        #expect(sr.ssrc == 376_699_518)
        #expect(sr.reports.first?.ssrc == 3_574_137_063)
        #expect(sdes.chunks.first?.ssrc == 376_699_518)
        #expect(sdes.chunks.first?.cname == "kIqmRVxs0C2132ye")

        var xr = RTCPVectors.receiverReportAndXR
        #expect(RTCPRewriter.rewriteSSRCs(in: &xr, sender: SSRCMap([(from: 3_574_137_062, to: 9)]), media: SSRCMap([(from: 1, to: 2)])))
        #expect(Array(xr[4..<8]) == [0, 0, 0, 9])
        #expect(Array(xr[12..<16]) == [0, 0, 0, 9])
        #expect(Array(xr[20..<24]) == [0, 0, 0, 2])

        var bye = RTCPBuilder.bye(ssrcs: [5, 6])
        #expect(RTCPRewriter.rewriteSSRCs(in: &bye, sender: SSRCMap([(from: 6, to: 60)]), media: SSRCMap()))
        #expect(try RTCPPacket.parseCompound(bye).get() == [.bye(RTCPBye(ssrcs: [5, 60]))])
    }

    @Test("A malformed compound is left untouched")
    func rewriteRefuses() {
        var bytes = RTCPVectors.receiverFeedback
        bytes[107] = 0x09  // the TWCC length now runs past the end
        let before = bytes
        #expect(!RTCPRewriter.rewriteSSRCs(in: &bytes, sender: SSRCMap([(from: 1, to: 2)]), media: SSRCMap()))
        #expect(bytes == before)
    }

    @Test("Built PLI, FIR, NACK, RR, SR and SDES are byte-exact and parse back")
    func builders() throws {
        let pli = RTCPBuilder.pictureLossIndication(senderSSRC: 1, mediaSSRC: 3_574_137_062)
        #expect(pli == Array(RTCPVectors.receiverFeedback[32..<44]))
        let nack = RTCPBuilder.genericNACK(senderSSRC: 1, mediaSSRC: 3_574_137_062, lostSequenceNumbers: [6699, 6700, 6702])
        #expect(nack == Array(RTCPVectors.receiverFeedback[44..<60]))
        let fir = RTCPBuilder.fullIntraRequest(senderSSRC: 1, entries: [.init(ssrc: 3_574_137_062, sequenceNumber: 7)])
        #expect(fir == Array(RTCPVectors.receiverFeedback[60..<80]))
        let rr = RTCPBuilder.receiverReport(RTCPReceiverReport(ssrc: 1, reports: [
            RTCPReportBlock(ssrc: 3_574_137_062, extendedHighestSequence: 6699, jitter: 16)]))
        #expect(rr == Array(RTCPVectors.receiverFeedback[0..<32]))
        let sr = RTCPBuilder.senderReport(RTCPSenderReport(
            ssrc: 376_699_517, ntpTimestamp: 0xE94F_9A6C_2B02_0C4A, rtpTimestamp: 120_000, packetCount: 125,
            octetCount: 10000, reports: [RTCPReportBlock(
                ssrc: 3_574_137_062, fractionLost: 10, cumulativeLost: -3, extendedHighestSequence: 0x0001_1A2B,
                jitter: 32, lastSenderReport: 0x9A6C_2B02, delaySinceLastSenderReport: 0x8000)]))
        let sdes = RTCPBuilder.sourceDescription(ssrc: 376_699_517, cname: "kIqmRVxs0C2132ye")
        #expect(sr + sdes == RTCPVectors.senderReportAndSDES)
    }

    @Test("NACK packing across wrap-around and long gaps")
    func nackPacking() throws {
        let lost: [UInt16] = [65534, 65535, 0, 1, 15, 40]
        let nack = RTCPGenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
        #expect(nack.items == [.init(packetID: 65534, bitmask: 0b0000_0000_0000_0111),
                               .init(packetID: 15, bitmask: 0), .init(packetID: 40, bitmask: 0)])
        #expect(nack.lostSequenceNumbers == lost)
        let bytes = RTCPBuilder.genericNACK(nack)
        #expect(try RTCPPacket.parseCompound(bytes).get() == [.genericNACK(nack)])
    }
}
