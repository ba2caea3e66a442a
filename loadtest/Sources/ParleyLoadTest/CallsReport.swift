import Foundation

/// What a calls run measured, as the end-of-run table and the JSON file give it.
public struct CallsReport: Sendable, Codable {
    public struct Setup: Sendable, Codable {
        public var requested: Int
        public var established: Int
        public var failed: [String: Int]
        public var media: String
        public var durationSeconds: Double
        public var rampPerSecond: Double
        public var decodingCalls: Int
        public var video: String
        /// `udp` or `tcp`: how the media clients reach the relay.
        public var transport: String?
    }

    public struct SetupTimes: Sendable, Codable {
        /// `call.invite` sent → `call.incoming` at the callee.
        public var inviteToIncoming: PercentileSummary
        /// `call.invite` sent → `call.accepted` at the caller.
        public var inviteToActive: PercentileSummary
        /// `call.invite` sent → the caller's first frame that passed its check (decoded, or
        /// verified byte for byte).
        public var inviteToFirstFrame: PercentileSummary
    }

    public struct Media: Sendable, Codable {
        public var packetsSent: Int
        public var packetsReceived: Int
        /// Sequence-number gaps at the receivers (RFC 3550 §A.3).
        public var packetsLost: Int
        /// The larger of the gaps over the packets expected and the packets sent but never
        /// received (the latter also sees a stream that stops, or packets in flight at the end).
        public var lossPercent: Double
        /// RFC 3550 interarrival jitter at the end of the run, mean and largest over receivers, ms.
        public var audioJitterMs: Spread
        public var videoJitterMs: Spread
        /// One-way latency from the abs-send-time header extension, ms.
        public var latencyMs: PercentileSummary
        public var audioFramesSent: Int
        public var videoFramesSent: Int
        public var audioFramesDecoded: Int
        public var videoFramesDecoded: Int
        public var audioFramesVerified: Int
        public var videoFramesVerified: Int
        /// Decoder errors, frames that differ from what was sent, unreadable or regressing frame numbers.
        public var decodeFailures: Int
        public var srtpFailures: Int
        /// Seconds of decoded audio measured, and how many were off the 440 Hz tone.
        public var toneSeconds: Int
        public var toneSecondsOff: Int
        public var keyFrameRequests: Int
    }

    public struct Spread: Sendable, Codable {
        public var mean: Double?
        public var max: Double?

        init(_ seconds: [Double]) {
            mean = seconds.isEmpty ? nil : seconds.reduce(0, +) / Double(seconds.count) * 1_000
            max = seconds.max().map { $0 * 1_000 }
        }
    }

    public struct Server: Sendable, Codable {
        /// Over the steady part of the run (every call placed → the end).
        public var windowSeconds: Double
        public var relayedPackets: UInt64
        public var relayedPacketsPerSecond: Double
        public var averagePacketBytes: Double
        public var cpuSeconds: Double
        public var cpuMicrosecondsPerPacket: Double?
        public var cpuPercentOfOneCore: Double
        public var residentBytes: UInt64
        public var decryptFailures: UInt64
        public var dropped: UInt64
        /// Of ``relayedPackets``, those sent over TCP connections (ICE over TCP); nil from a
        /// server that does not report TCP.
        public var relayedTCPPackets: UInt64?
    }

    /// What the load generator cost over the same window, and what the kernel dropped: figures
    /// that tell whether the server or the harness (on the same machine) set the limit.
    public struct Harness: Sendable, Codable {
        public var cpuPercentOfOneCore: Double
        /// `RcvbufErrors` of the whole machine (harness and relay sockets) over the window.
        public var udpReceiveBufferDrops: UInt64?
    }

    public struct Comparison: Sendable, Codable {
        public var reference: ReferenceRun.Result
        /// Parley's CPU per packet over the reference's.
        public var ratio: Double?

        public init(reference: ReferenceRun.Result, ratio: Double?) {
            self.reference = reference
            self.ratio = ratio
        }
    }

    public var scenario = "calls"
    public var setup: Setup
    public var setupTimes: SetupTimes
    public var media: Media
    public var server: Server?
    public var harness: Harness?
    public var reference: Comparison?
    public var timeline: [TimelinePoint]

    init(options: CallsOptions, collector: CallsCollector, timeline: CallsTimeline) async {
        let totals = await collector.totals
        setup = Setup(
            requested: options.calls, established: await collector.established, failed: await collector.failures,
            media: options.video ? "audio+video" : "audio", durationSeconds: options.duration.seconds,
            rampPerSecond: options.rampPerSecond, decodingCalls: min(options.decodingCalls, options.calls),
            video: options.video ? "VP8 \(options.videoWidth)x\(options.videoHeight) \(options.framesPerSecond) fps \(options.videoBitrateKbps) kbit/s" : "none",
            transport: options.transport.rawValue)
        setupTimes = SetupTimes(inviteToIncoming: await collector.inviteToIncoming.summary,
                                inviteToActive: await collector.inviteToActive.summary,
                                inviteToFirstFrame: await collector.inviteToFirstFrame.summary)
        media = Media(
            packetsSent: totals.packetsSent, packetsReceived: totals.packetsReceived, packetsLost: totals.packetsLost,
            lossPercent: Self.lossPercent(sent: totals.packetsSent, received: totals.packetsReceived, gaps: totals.packetsLost),
            audioJitterMs: Spread(totals.audioJitter), videoJitterMs: Spread(totals.videoJitter),
            latencyMs: PercentileSummary(count: totals.latency.count, p50: totals.latency.percentile(50).map(\.milliseconds),
                                         p95: totals.latency.percentile(95).map(\.milliseconds),
                                         p99: totals.latency.percentile(99).map(\.milliseconds),
                                         max: totals.latency.percentile(100).map(\.milliseconds)),
            audioFramesSent: totals.audioFramesSent, videoFramesSent: totals.videoFramesSent,
            audioFramesDecoded: totals.audioFramesDecoded, videoFramesDecoded: totals.videoFramesDecoded,
            audioFramesVerified: totals.audioFramesVerified, videoFramesVerified: totals.videoFramesVerified,
            decodeFailures: totals.decodeFailures, srtpFailures: totals.srtpFailures,
            toneSeconds: totals.toneWindows, toneSecondsOff: totals.toneWindowsOff, keyFrameRequests: totals.keyFrameRequests)
        server = Self.server(timeline.statuses)
        harness = Self.harness(timeline.statuses)
        self.timeline = timeline.points
    }

    /// Loss in percent: the larger of the sequence gaps over the packets expected (RFC 3550 §6.4.1)
    /// and the packets sent that never arrived.
    static func lossPercent(sent: Int, received: Int, gaps: Int) -> Double {
        let byGaps = received + gaps > 0 ? Double(max(gaps, 0)) / Double(received + gaps) : 0
        let bySent = sent > 0 ? Double(max(sent - received, 0)) / Double(sent) : 0
        return max(byGaps, bySent) * 100
    }

    /// The server's figures between the first status with every call placed and the last one.
    static func server(_ statuses: [StatusSample]) -> Server? {
        guard let (first, last) = window(statuses) else { return nil }
        let seconds = (last.at - first.at).seconds
        let packets = last.status.relay.packetsOut &- first.status.relay.packetsOut
        let bytes = last.status.relay.bytesOut &- first.status.relay.bytesOut
        let cpu = last.status.process.cpuSeconds - first.status.process.cpuSeconds
        return Server(
            windowSeconds: seconds, relayedPackets: packets, relayedPacketsPerSecond: Double(packets) / seconds,
            averagePacketBytes: packets > 0 ? Double(bytes) / Double(packets) : 0, cpuSeconds: cpu,
            cpuMicrosecondsPerPacket: packets > 0 ? cpu / Double(packets) * 1e6 : nil, cpuPercentOfOneCore: cpu / seconds * 100,
            residentBytes: last.status.process.residentBytes,
            decryptFailures: last.status.relay.decryptFailures &- first.status.relay.decryptFailures,
            dropped: last.status.relay.dropped &- first.status.relay.dropped,
            relayedTCPPackets: last.status.relay.tcp.flatMap { end in first.status.relay.tcp.map { end.packetsOut &- $0.packetsOut } })
    }

    static func harness(_ statuses: [StatusSample]) -> Harness? {
        guard let (first, last) = window(statuses) else { return nil }
        let drops = last.host.udpReceiveBufferErrors.flatMap { end in first.host.udpReceiveBufferErrors.map { end &- $0 } }
        return Harness(cpuPercentOfOneCore: (last.host.harnessCPUSeconds - first.host.harnessCPUSeconds) / (last.at - first.at).seconds * 100,
                       udpReceiveBufferDrops: drops)
    }

    /// The steady part: the first sample with every call placed, and the last one.
    static func window(_ statuses: [StatusSample]) -> (StatusSample, StatusSample)? {
        guard let first = statuses.first(where: \.allPlaced), let last = statuses.last, last.at > first.at else { return nil }
        return (first, last)
    }

    /// The end-of-run table.
    public var table: String {
        func ms(_ value: Double?) -> String { value.map { $0.fixed(2) } ?? "-" }
        func row(_ name: String, _ summary: PercentileSummary) -> String { summary.row(name, width: 30, places: 2) }
        var lines = [
            "calls: \(setup.established)/\(setup.requested) established, \(setup.media), \(setup.durationSeconds.fixed(0)) s, ramp \(setup.rampPerSecond.fixed(1))/s",
            "  video                          \(setup.video)",
            "  transport                      \(setup.transport ?? "udp")",
        ]
        for (reason, count) in setup.failed.sorted(by: { $0.key < $1.key }) { lines.append("  failed \(count)× \(reason)") }
        lines += [
            "setup",
            row("invite → incoming", setupTimes.inviteToIncoming),
            row("invite → active", setupTimes.inviteToActive),
            row("invite → first checked frame", setupTimes.inviteToFirstFrame),
            "media",
            "  packets sent / received         \(media.packetsSent) / \(media.packetsReceived); sequence gaps \(media.packetsLost)  (loss \(media.lossPercent.fixed(3)) %)",
            "  jitter (RFC 3550) audio         mean \(ms(media.audioJitterMs.mean))  max \(ms(media.audioJitterMs.max)) ms",
            "  jitter (RFC 3550) video         mean \(ms(media.videoJitterMs.mean))  max \(ms(media.videoJitterMs.max)) ms",
            row("one-way latency", media.latencyMs),
            "  frames sent audio / video       \(media.audioFramesSent) / \(media.videoFramesSent)",
            "  frames verified audio / video   \(media.audioFramesVerified) / \(media.videoFramesVerified)",
            "  frames decoded audio / video    \(media.audioFramesDecoded) / \(media.videoFramesDecoded)  (tone off in \(media.toneSecondsOff) of \(media.toneSeconds) s)",
            "  decode failures                 \(media.decodeFailures)  (SRTP failures \(media.srtpFailures), key-frame requests \(media.keyFrameRequests))",
        ]
        if let server {
            lines += [
                "server (steady \(server.windowSeconds.fixed(1)) s)",
                "  relayed                         \(Int(server.relayedPacketsPerSecond)) packets/s, \(Int(server.averagePacketBytes)) bytes average"
                    + (server.relayedTCPPackets.map { " (over TCP \($0) of \(server.relayedPackets))" } ?? ""),
                "  CPU                             \(server.cpuPercentOfOneCore.fixed(1)) % of a core, \(server.cpuMicrosecondsPerPacket.map { $0.fixed(2) } ?? "-") µs per relayed packet",
                "  resident                        \(server.residentBytes / 1_048_576) MiB; decrypt failures \(server.decryptFailures), dropped \(server.dropped)",
            ]
        }
        if let harness {
            lines.append("  harness CPU                     \(harness.cpuPercentOfOneCore.fixed(1)) % of a core; UDP receive-buffer drops (machine) \(harness.udpReceiveBufferDrops.map(String.init) ?? "-")")
        }
        if let reference {
            lines.append("reference (../shared/reference, \(reference.reference.packetsPerSecond) pps × \(reference.reference.packetSize) B, AES-GCM)")
            lines.append("  CPU                             \(reference.reference.cpuMicrosecondsPerPacket.fixed(2)) µs per relayed packet; Parley/reference \(reference.ratio.map { $0.fixed(2) } ?? "-")×")
        }
        return lines.joined(separator: "\n")
    }
}

extension CallsReport {
    /// Relayed packets per second, loss and one-way latency over the run.
    public var chart: String {
        timeline.chart(title: "Parley calls: \(setup.requested) × \(setup.media), \(Int(setup.durationSeconds)) s",
                       rateTitle: "Relayed packets", rateUnit: "packets/s", lossTitle: "Packet loss", latencyTitle: "One-way latency").svg
    }
}
