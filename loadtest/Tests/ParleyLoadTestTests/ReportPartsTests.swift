import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import ParleyLoadTest

@Suite("Report parts: the reference's output, the chart, the send time in a message")
struct ReportPartsTests {
    @Test func readsTheReferenceRelayLine() throws {
        let output = """
        gen sent=200000 pps=20000 cpu_s=1.234
        relay got=199876 fwd=199876 bad=0 wall_s=10.00 cpu_s=1.480 cpu_us_per_pkt=7.405 pps=19988
        sink got=199876 verified=0
        """
        let parsed = try #require(ReferenceRun.parseRelayLine(output))
        #expect(parsed.cpuMicrosecondsPerPacket == 7.405)
        #expect(parsed.packetsPerSecond == 19_988)
        #expect(ReferenceRun.parseRelayLine("gen sent=1\nsink got=1") == nil)
        #expect(ReferenceRun.parseRelayLine("relay got=1 cpu_us_per_pkt=abc") == nil)
    }

    @Test func missingReferenceScriptIsAClearError() {
        #expect(throws: ReferenceRun.Failure.self) {
            try ReferenceRun(script: "/nonexistent/run.sh").run(packetsPerSecond: 100, packetSize: 100, seconds: 1)
        }
    }

    @Test func chartIsWellFormedSVGWithAPanelPerSeries() throws {
        let points = (0..<10).map { TimelinePoint(time: Double($0), active: 3, rate: Double($0) * 1_000,
                                                  lossPercent: $0 == 4 ? 1.5 : 0, latencyP50: 0.8, latencyP99: 2.5) }
        let svg = points.chart(title: "a <run> & more", rateTitle: "Relayed packets", rateUnit: "packets/s",
                               lossTitle: "Packet loss", latencyTitle: "One-way latency").svg
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 4)
        #expect(svg.contains("a &lt;run&gt; &amp; more"))
        #expect(svg.contains("Packet loss (%)"))
        // The rate axis tops out at a round number above the peak (9 000 → 10 000).
        #expect(svg.contains(">10000<"))
    }

    @Test func niceCeilings() {
        #expect(SVGChart.niceCeiling(0) == 1)
        #expect(SVGChart.niceCeiling(0.7) == 1)
        #expect(SVGChart.niceCeiling(1.2) == 2)
        #expect(SVGChart.niceCeiling(3) == 5)
        #expect(SVGChart.niceCeiling(9_000) == 10_000)
        #expect(SVGChart.niceCeiling(20_000) == 20_000)
        #expect(SVGChart.niceCeiling(.infinity) == 1)
    }

    @Test func messageCarriesItsSendTime() throws {
        let sentAt = ContinuousClock.now
        let text = ChatScenario.text(sentAt: sentAt)
        let read = try #require(ChatScenario.sendTime(text))
        #expect(abs((read - sentAt).seconds) < 0.000_001)
        #expect(ChatScenario.sendTime("hello there") == nil)
    }

    @Test func serverWindowStartsWhenEveryCallIsPlaced() throws {
        func status(out: UInt64, bytes: UInt64, cpu: Double) -> ServerAPI.Status {
            ServerAPI.Status(connections: 4, relay: .init(legs: 4, packetsIn: out, packetsOut: out, bytesIn: bytes, bytesOut: bytes,
                                                          decryptFailures: 0, dropped: 0),
                             process: .init(cpuSeconds: cpu, residentBytes: 1 << 20), calls: .init(ringing: 0, active: 2))
        }
        let t0 = ContinuousClock.now
        func host(_ cpu: Double, _ drops: UInt64) -> HostFigures { HostFigures(harnessCPUSeconds: cpu, udpReceiveBufferErrors: drops) }
        let statuses = [
            StatusSample(at: t0, status: status(out: 100, bytes: 100_000, cpu: 1.0), host: host(0, 0), allPlaced: false),
            StatusSample(at: t0 + .seconds(1), status: status(out: 1_000, bytes: 1_000_000, cpu: 1.1), host: host(1, 5), allPlaced: true),
            StatusSample(at: t0 + .seconds(3), status: status(out: 21_000, bytes: 21_000_000, cpu: 1.3), host: host(2.5, 12), allPlaced: true),
        ]
        let server = try #require(CallsReport.server(statuses))
        #expect(server.windowSeconds == 2)
        #expect(server.relayedPackets == 20_000)
        #expect(server.relayedPacketsPerSecond == 10_000)
        #expect(server.averagePacketBytes == 1_000)
        #expect(abs((server.cpuMicrosecondsPerPacket ?? 0) - 10) < 1e-9)
        #expect(abs(server.cpuPercentOfOneCore - 10) < 1e-9)
        #expect(CallsReport.server(Array(statuses.prefix(1))) == nil)
        let harness = try #require(CallsReport.harness(statuses))
        #expect(abs(harness.cpuPercentOfOneCore - 75) < 1e-9)
        #expect(harness.udpReceiveBufferDrops == 7)
    }

    @Test func readsUDPReceiveBufferErrors() {
        let snmp = """
        Ip: Forwarding DefaultTTL
        Ip: 1 64
        Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
        Udp: 15585 12 3 15590 42 0 0 0 0
        UdpLite: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors IgnoredMulti MemErrors
        UdpLite: 0 0 0 0 0 0 0 0 0
        """
        #expect(HostFigures.udpReceiveBufferErrors(snmp: snmp) == 42)
        #expect(HostFigures.udpReceiveBufferErrors(snmp: "Ip: 1 2") == nil)
        #expect(HostFigures.now().harnessCPUSeconds > 0)
    }
}

@Suite("Loss as the calls report counts it")
struct LossTests {
    @Test func theLargerOfGapsAndUndelivered() {
        #expect(CallsReport.lossPercent(sent: 0, received: 0, gaps: 0) == 0)
        #expect(CallsReport.lossPercent(sent: 1_000, received: 1_000, gaps: 0) == 0)
        // A stream that stops leaves no gap, but the packets sent never arrived.
        #expect(CallsReport.lossPercent(sent: 1_000, received: 500, gaps: 0) == 50)
        // Gaps weigh in when they say more (e.g. packets still counted as sent on the other side).
        #expect(CallsReport.lossPercent(sent: 1_000, received: 990, gaps: 10) == 1)
        #expect(CallsReport.lossPercent(sent: 100, received: 98, gaps: 2) == 2)
        // More received than sent in a window (in flight at its start) is no negative loss.
        #expect(CallsReport.lossPercent(sent: 100, received: 110, gaps: 0) == 0)
    }
}
