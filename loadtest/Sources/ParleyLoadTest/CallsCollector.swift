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
    struct Totals: Sendable {
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
