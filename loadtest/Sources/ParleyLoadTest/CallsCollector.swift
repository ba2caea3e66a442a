import ParleyMediaClient

/// Gathers what every call's two sides measured: setup times as calls come up, and each side's
/// latest cumulative report (the sides report once a second).
actor CallsCollector {
    enum Side: Hashable { case caller, callee }
    struct SideKey: Hashable {
        var call: Int
        var side: Side
    }

    /// Sums over every side's latest report.
    struct Totals: Sendable, Codable, Equatable {
        var packetsSent = 0
        var packetsReceived = 0
        var packetsLost = 0
        var audioFramesDecoded = 0
        var videoFramesDecoded = 0
        var audioFramesVerified = 0
        var videoFramesVerified = 0
        var audioFramesSent = 0
        var videoFramesSent = 0
        var decodeFailures = 0
        var srtpFailures = 0
        var toneWindows = 0
        var toneWindowsOff = 0
        var keyFrameRequests = 0
        var encodeFailures = 0
        var latency = LatencyHistogram()
        var audioJitter: [Double] = []
        var videoJitter: [Double] = []
        // What a person would have seen and heard.
        var videoFramesShown = 0
        /// Frames shown per second, per receiver that showed any (over its first to last frame).
        var videoFramesPerSecond: [Double] = []
        var freezes = 0
        var freezeSeconds = 0.0
        var videoSeconds = 0.0
        var audioFramesConcealed = 0
        var audioFramesExpected = 0
        // Loss repair: RTCP feedback both ways, and what came back.
        var nacksSent = 0
        var packetsNACKed = 0
        var nacksReceived = 0
        var retransmissionsSent = 0
        var videoPacketsRecovered = 0
        var videoPacketsLate = 0
        var videoPacketsGivenUp = 0
        var pictureLossIndicationsSent = 0
        var duplicatePackets = 0
    }

    private(set) var inviteToIncoming = Samples()
    private(set) var inviteToActive = Samples()
    private(set) var inviteToFirstFrame = Samples()
    private(set) var established = 0
    private(set) var ended = 0
    private(set) var failures: [String: Int] = [:]
    private var reports: [SideKey: MediaClient.CallReport] = [:]
    private var firstFrameSeen: Set<Int> = []

    func established(incoming: Duration, active: Duration) {
        established += 1
        inviteToIncoming.append(incoming.seconds)
        inviteToActive.append(active.seconds)
    }

    func failed(_ reason: String) {
        failures[reason, default: 0] += 1
    }

    func callEnded() { ended += 1 }

    /// The side's cumulative report; the caller's first checked frame gives the call's setup time.
    func update(_ key: SideKey, _ report: MediaClient.CallReport, invitedAt: ContinuousClock.Instant) {
        reports[key] = report
        if key.side == .caller, !firstFrameSeen.contains(key.call), let first = report.received.firstFrameAt {
            firstFrameSeen.insert(key.call)
            inviteToFirstFrame.append((first - invitedAt).seconds)
        }
    }

    var callsUp: Int { established - ended }

    /// Everything the collector knows, as one value a worker process hands its parent.
    var snapshot: Snapshot {
        Snapshot(totals: totals, inviteToIncoming: inviteToIncoming.values, inviteToActive: inviteToActive.values,
                 inviteToFirstFrame: inviteToFirstFrame.values, established: established, ended: ended, failures: failures)
    }

    /// What one process's collector holds: its totals, its setup-time samples, its calls and
    /// their failures. Workers send theirs to the parent once a second (a JSON line each), and
    /// the parent's report is made from ``merged(_:)`` of their latest.
    struct Snapshot: Sendable, Codable, Equatable {
        var totals = Totals()
        var inviteToIncoming: [Double] = []
        var inviteToActive: [Double] = []
        var inviteToFirstFrame: [Double] = []
        var established = 0
        var ended = 0
        var failures: [String: Int] = [:]

        var callsUp: Int { established - ended }
        var failed: Int { failures.values.reduce(0, +) }

        /// The snapshots of several workers as one: counts added, samples and per-receiver
        /// figures put together, latency histograms merged bucket by bucket, failures by reason.
        static func merged(_ parts: [Snapshot]) -> Snapshot {
            var all = Snapshot()
            for part in parts {
                all.totals.add(part.totals)
                all.inviteToIncoming += part.inviteToIncoming
                all.inviteToActive += part.inviteToActive
                all.inviteToFirstFrame += part.inviteToFirstFrame
                all.established += part.established
                all.ended += part.ended
                all.failures.merge(part.failures, uniquingKeysWith: +)
            }
            return all
        }
    }

    var totals: Totals {
        var totals = Totals()
        for report in reports.values {
            let received = report.received, sent = report.sent
            totals.packetsSent += sent.rtpPacketsSent
            totals.audioFramesSent += sent.audioFramesSent
            totals.videoFramesSent += sent.videoFramesSent
            totals.keyFrameRequests += sent.keyFrameRequests
            totals.encodeFailures += sent.encodeFailures
            totals.packetsReceived += received.audioPackets + received.videoPackets
            totals.packetsLost += received.audioPacketsLost + received.videoPacketsLost
            totals.audioFramesDecoded += received.audioFramesDecoded
            totals.videoFramesDecoded += received.videoFramesDecoded
            totals.audioFramesVerified += received.audioFramesVerified
            totals.videoFramesVerified += received.videoFramesVerified
            totals.decodeFailures += received.decodeFailures
            totals.srtpFailures += received.srtpFailures
            totals.toneWindows += received.toneWindows
            totals.toneWindowsOff += received.toneWindowsOff
            totals.latency.merge(received.latency)
            totals.videoFramesShown += received.videoFramesShown
            if let first = received.firstVideoFrameAt, let last = received.lastVideoFrameAt, last > first {
                let span = (last - first).seconds
                totals.videoFramesPerSecond.append(Double(received.videoFramesShown - 1) / span)
                totals.videoSeconds += span
            }
            totals.freezes += received.freezes
            totals.freezeSeconds += received.freezeTime.seconds
            totals.audioFramesConcealed += received.audioPacketsLost + received.audioOutOfOrder
            totals.audioFramesExpected += received.audioPackets + received.audioPacketsLost
            totals.nacksSent += received.nacksSent
            totals.packetsNACKed += received.packetsNACKed
            totals.nacksReceived += sent.nacksReceived
            totals.retransmissionsSent += sent.retransmissionsSent
            totals.videoPacketsRecovered += received.videoPacketsRecovered
            totals.videoPacketsLate += received.videoPacketsLate
            totals.videoPacketsGivenUp += received.videoPacketsGivenUp
            totals.pictureLossIndicationsSent += received.pictureLossIndicationsSent
            totals.duplicatePackets += received.duplicatePackets
            if received.audioPackets > 1 { totals.audioJitter.append(received.audioJitter) }
            if received.videoPackets > 1 { totals.videoJitter.append(received.videoJitter) }
        }
        return totals
    }
}

extension CallsCollector.Totals {
    /// Adds another process's totals to these.
    mutating func add(_ other: Self) {
        packetsSent += other.packetsSent
        packetsReceived += other.packetsReceived
        packetsLost += other.packetsLost
        audioFramesDecoded += other.audioFramesDecoded
        videoFramesDecoded += other.videoFramesDecoded
        audioFramesVerified += other.audioFramesVerified
        videoFramesVerified += other.videoFramesVerified
        audioFramesSent += other.audioFramesSent
        videoFramesSent += other.videoFramesSent
        decodeFailures += other.decodeFailures
        srtpFailures += other.srtpFailures
        toneWindows += other.toneWindows
        toneWindowsOff += other.toneWindowsOff
        keyFrameRequests += other.keyFrameRequests
        encodeFailures += other.encodeFailures
        latency.merge(other.latency)
        audioJitter += other.audioJitter
        videoJitter += other.videoJitter
        videoFramesShown += other.videoFramesShown
        videoFramesPerSecond += other.videoFramesPerSecond
        freezes += other.freezes
        freezeSeconds += other.freezeSeconds
        videoSeconds += other.videoSeconds
        audioFramesConcealed += other.audioFramesConcealed
        audioFramesExpected += other.audioFramesExpected
        nacksSent += other.nacksSent
        packetsNACKed += other.packetsNACKed
        nacksReceived += other.nacksReceived
        retransmissionsSent += other.retransmissionsSent
        videoPacketsRecovered += other.videoPacketsRecovered
        videoPacketsLate += other.videoPacketsLate
        videoPacketsGivenUp += other.videoPacketsGivenUp
        pictureLossIndicationsSent += other.pictureLossIndicationsSent
        duplicatePackets += other.duplicatePackets
    }
}
