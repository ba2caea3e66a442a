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
        /// The impaired link (netem arguments), and who applied it; nil on a clean link.
        public var netem: String?
        public var netemAppliedBy: String?
        /// Harness processes the media clients were spread over (`--workers`); nil for one.
        public var workers: Int?
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
        /// Packets lost over those sent: sequence gaps, and packets still missing two seconds
        /// after they were sent (a stream that stopped) — not those in flight when the run ended.
        public var lossPercent: Double
        /// Sent but neither received nor a gap when the run ended: in flight then, or lost
        /// (counted in the loss once two seconds overdue).
        public var notArrivedAtEnd: Int?
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

    /// What people in the calls would have seen and heard, and how loss was repaired.
    public struct Quality: Sendable, Codable {
        /// Video frames shown (decoded, or verified and decodable) per second, per receiver: mean and lowest.
        public var videoFramesPerSecondMean: Double?
        public var videoFramesPerSecondLowest: Double?
        /// Gaps over 200 ms between shown frames: how many, their total, and their share of the
        /// time video was being received.
        public var freezes: Int
        public var freezeSeconds: Double
        public var freezePercent: Double
        /// Audio frames concealed (lost, or too late to play) in percent of those expected, and in seconds.
        public var audioConcealedPercent: Double
        public var audioConcealedSeconds: Double
        /// Generic NACKs the receivers sent, the packets they named, and the NACKs that reached
        /// the senders through the relay.
        public var nacksSent: Int
        public var packetsNACKed: Int
        public var nacksReceivedBySenders: Int
        /// Packets the senders sent again (RFC 4588 RTX, where negotiated).
        public var retransmissionsSent: Int
        /// Video packets missing at first that came in time (reordered or resent), those given up,
        /// and the recovered share of the gaps.
        public var videoPacketsRecovered: Int
        public var videoPacketsGivenUp: Int
        public var videoPacketsLate: Int
        public var recoveredPercent: Double?
        /// PLIs the receivers sent, and key frames the senders were asked for (PLI and FIR).
        public var pictureLossIndications: Int
        public var keyFrameRequests: Int
        /// Packets the receivers got twice (a resend of one that had come after all), dropped by SRTP's replay check.
        public var duplicatePackets: Int
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
        /// Every harness process (the parent and its workers).
        public var cpuPercentOfOneCore: Double
        /// That over the calls carrying media: what one call (two media clients) costs.
        public var cpuPercentPerCall: Double?
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
    public var quality: Quality?
    public var server: Server?
    public var harness: Harness?
    public var reference: Comparison?
    /// Why there is no ``reference`` although one was asked for (no `../shared/reference`, it failed).
    public var referenceNote: String?
    public var timeline: [TimelinePoint]

    init(options: CallsOptions, collected: CallsCollector.Snapshot, timeline: CallsTimeline) {
        let totals = collected.totals
        setup = Setup(
            requested: options.calls, established: collected.established, failed: collected.failures,
            media: options.video ? "audio+video" : "audio", durationSeconds: options.duration.seconds,
            rampPerSecond: options.rampPerSecond, decodingCalls: min(options.decodingCalls, options.calls),
            video: options.video ? "VP8 \(options.videoWidth)x\(options.videoHeight) \(options.framesPerSecond) fps \(options.videoBitrateKbps) kbit/s" : "none",
            transport: options.transport.rawValue, netem: options.netem?.summary,
            netemAppliedBy: options.netem.map { _ in options.netemPlacement.rawValue })
        setup.workers = options.workers > 1 ? options.workers : nil
        setupTimes = SetupTimes(inviteToIncoming: Samples(collected.inviteToIncoming).summary,
                                inviteToActive: Samples(collected.inviteToActive).summary,
                                inviteToFirstFrame: Samples(collected.inviteToFirstFrame).summary)
        media = Media(
            packetsSent: totals.packetsSent, packetsReceived: totals.packetsReceived, packetsLost: totals.packetsLost,
            lossPercent: totals.packetsSent > 0
                ? Double(max(timeline.lostPackets, totals.packetsLost)) / Double(totals.packetsSent) * 100 : 0,
            notArrivedAtEnd: max(totals.packetsSent - totals.packetsReceived - totals.packetsLost, 0),
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
        quality = Self.quality(totals)
        server = Self.server(timeline.statuses)
        harness = Self.harness(timeline.statuses, calls: collected.established)
        self.timeline = timeline.points
    }

    static func quality(_ totals: CallsCollector.Totals) -> Quality {
        let fps = totals.videoFramesPerSecond
        let gaps = totals.videoPacketsRecovered + totals.videoPacketsGivenUp
        return Quality(
            videoFramesPerSecondMean: fps.isEmpty ? nil : fps.reduce(0, +) / Double(fps.count),
            videoFramesPerSecondLowest: fps.min(), freezes: totals.freezes, freezeSeconds: totals.freezeSeconds,
            freezePercent: totals.videoSeconds > 0 ? totals.freezeSeconds / totals.videoSeconds * 100 : 0,
            audioConcealedPercent: totals.audioFramesExpected > 0
                ? Double(totals.audioFramesConcealed) / Double(totals.audioFramesExpected) * 100 : 0,
            audioConcealedSeconds: Double(totals.audioFramesConcealed) * 0.02,
            nacksSent: totals.nacksSent, packetsNACKed: totals.packetsNACKed, nacksReceivedBySenders: totals.nacksReceived,
            retransmissionsSent: totals.retransmissionsSent, videoPacketsRecovered: totals.videoPacketsRecovered,
            videoPacketsGivenUp: totals.videoPacketsGivenUp, videoPacketsLate: totals.videoPacketsLate,
            recoveredPercent: gaps > 0 ? Double(totals.videoPacketsRecovered) / Double(gaps) * 100 : nil,
            pictureLossIndications: totals.pictureLossIndicationsSent, keyFrameRequests: totals.keyFrameRequests,
            duplicatePackets: totals.duplicatePackets)
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

    static func harness(_ statuses: [StatusSample], calls: Int) -> Harness? {
        guard let (first, last) = window(statuses) else { return nil }
        let drops = last.host.udpReceiveBufferErrors.flatMap { end in first.host.udpReceiveBufferErrors.map { end &- $0 } }
        let percent = (last.host.harnessCPUSeconds - first.host.harnessCPUSeconds) / (last.at - first.at).seconds * 100
        return Harness(cpuPercentOfOneCore: percent, cpuPercentPerCall: calls > 0 ? percent / Double(calls) : nil,
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
            "  link                           " + (setup.netem.map { "netem \($0) each way (\(setup.netemAppliedBy == "kernel" ? "tc netem on the clients' veth" : "in the harness, per media socket"))" } ?? "clean"),
        ]
        for (reason, count) in setup.failed.sorted(by: { $0.key < $1.key }) { lines.append("  failed \(count)× \(reason)") }
        lines += [
            "setup",
            row("invite → incoming", setupTimes.inviteToIncoming),
            row("invite → active", setupTimes.inviteToActive),
            row("invite → first checked frame", setupTimes.inviteToFirstFrame),
            "media",
            "  packets sent / received         \(media.packetsSent) / \(media.packetsReceived); sequence gaps \(media.packetsLost), in flight at the end \(media.notArrivedAtEnd.map(String.init) ?? "-")  (loss \(media.lossPercent.fixed(3)) %)",
            "  jitter (RFC 3550) audio         mean \(ms(media.audioJitterMs.mean))  max \(ms(media.audioJitterMs.max)) ms",
            "  jitter (RFC 3550) video         mean \(ms(media.videoJitterMs.mean))  max \(ms(media.videoJitterMs.max)) ms",
            row("one-way latency", media.latencyMs),
            "  frames sent audio / video       \(media.audioFramesSent) / \(media.videoFramesSent)",
            "  frames verified audio / video   \(media.audioFramesVerified) / \(media.videoFramesVerified)",
            "  frames decoded audio / video    \(media.audioFramesDecoded) / \(media.videoFramesDecoded)  (tone off in \(media.toneSecondsOff) of \(media.toneSeconds) s)",
            "  decode failures                 \(media.decodeFailures)  (SRTP failures \(media.srtpFailures), key-frame requests \(media.keyFrameRequests))",
        ]
        if let quality {
            func number(_ value: Double?, _ places: Int) -> String { value.map { $0.fixed(places) } ?? "-" }
            lines += [
                "quality",
                "  video frames shown per second   mean \(number(quality.videoFramesPerSecondMean, 1))  lowest \(number(quality.videoFramesPerSecondLowest, 1))",
                "  freezes (gaps over 200 ms)      \(quality.freezes), \(quality.freezeSeconds.fixed(1)) s (\(quality.freezePercent.fixed(2)) % of video time)",
                "  audio concealed                 \(quality.audioConcealedSeconds.fixed(1)) s (\(quality.audioConcealedPercent.fixed(2)) % of frames)",
                "  NACKs sent / reached senders    \(quality.nacksSent) / \(quality.nacksReceivedBySenders) (\(quality.packetsNACKed) packets named); resent by senders \(quality.retransmissionsSent); duplicates \(quality.duplicatePackets)",
                "  video gaps recovered / given up \(quality.videoPacketsRecovered) / \(quality.videoPacketsGivenUp) (\(number(quality.recoveredPercent, 1)) % recovered; \(quality.videoPacketsLate) came too late)",
                "  PLIs sent / key frames asked    \(quality.pictureLossIndications) / \(quality.keyFrameRequests)",
            ]
        }
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
            lines.append("  harness CPU                     \(harness.cpuPercentOfOneCore.fixed(1)) % of a core"
                + (harness.cpuPercentPerCall.map { ", \($0.fixed(2)) % per call" } ?? "")
                + (setup.workers.map { " (\($0) worker processes)" } ?? "")
                + "; UDP receive-buffer drops (machine) \(harness.udpReceiveBufferDrops.map(String.init) ?? "-")")
        }
        if let referenceNote { lines.append(referenceNote) }
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
