import ParleyMediaClient

/// UDP or TCP, as the command line names it.
public typealias MediaTransport = ParleyMediaClient.MediaTransport

/// What the `calls` scenario runs: how many 1:1 calls, how long, how fast they start, and the
/// media each side sends.
public struct CallsOptions: Sendable {
    /// Concurrent calls (2 × calls users).
    public var calls = 4
    /// How long every call carries media once all have started.
    public var duration: Duration = .seconds(10)
    /// Calls started per second while ramping up.
    public var rampPerSecond = 10.0
    /// Audio and video (VP8), or audio only.
    public var video = true
    /// Calls whose receivers also decode with libopus and libvpx (tone and frame numbers checked);
    /// the others check every frame byte for byte against what was sent.
    public var decodingCalls = 4
    public var videoWidth = 640
    public var videoHeight = 360
    public var videoBitrateKbps = 1_000
    public var framesPerSecond = 30
    /// The local address the media clients bind (and offer as their candidate): loopback for a
    /// server on this machine, this machine's address for one elsewhere.
    public var bindHost = "127.0.0.1"
    /// UDP, or ICE over TCP to the relay's passive TCP candidate (RFC 6544, RFC 4571 framing).
    public var transport: MediaTransport = .udp
    /// The impaired link between the clients and the relay, if any, and who applies it.
    public var netem: NetemProfile?
    public var netemPlacement: NetemPlacement = .harness
    /// How long video after a gap waits for the missing packets before the gap is given up.
    public var videoReorderWait: Duration = .milliseconds(100)
    /// How often each media client wakes to send what is due.
    public var tick: Duration = .milliseconds(5)
    /// Harness processes the calls are spread over (`--workers`): the parent starts this many
    /// children of itself, each runs every `workers`-th call, and the parent merges their figures.
    public var workers = 1
    /// Set in such a child: which share of the calls it runs (0..<workers).
    public var workerIndex: Int?
    /// The parent's command line for its children (without `--workers`): each gets it with its
    /// `--worker-index`.
    public var workerArguments: [String] = []

    /// The calls (by index in the whole run) this process places: all of them, or a worker's share.
    var callIndices: [Int] {
        guard let workerIndex, workers > 1 else { return Array(0..<calls) }
        return Array(stride(from: workerIndex, to: calls, by: workers))
    }

    public init() {}

    /// The media client's configuration for one side.
    func clientConfiguration(shared: PreEncodedMedia, decoding: Bool) -> MediaClientConfiguration {
        var configuration = baseConfiguration
        configuration.sharedMedia = shared
        configuration.decodesMedia = decoding
        return configuration
    }

    /// How long video after a gap waits: on an impaired link, long enough for a NACK to cross
    /// both clients' links and the resent packet to come back (twice each link's delay and jitter,
    /// each way) and a little more.
    var reorderWait: Duration {
        guard let netem else { return videoReorderWait }
        return max(videoReorderWait, .microseconds(Int64((4 * (netem.delayMs + netem.jitterMs) + 50) * 1_000)))
    }

    /// How deep audio's jitter buffer is: a frame on a clean link; on an impaired one, the jitter
    /// of both clients' links each way besides.
    var audioReorderWait: Duration {
        .microseconds(Int64(((netem.map { 4 * $0.jitterMs } ?? 0) + 20) * 1_000))
    }

    /// What the shared media is encoded with.
    var baseConfiguration: MediaClientConfiguration {
        var configuration = MediaClientConfiguration(
            videoWidth: videoWidth, videoHeight: videoHeight, framesPerSecond: framesPerSecond,
            videoBitrateKbps: videoBitrateKbps, bindHost: bindHost, cname: "parley-loadtest", transport: transport)
        if let netem, netemPlacement == .harness { configuration.impairment = netem.impairment }
        // As a browser receives: video after a gap waits a little for reordered packets, and
        // missing ones are asked for with NACKs.
        configuration.videoReorderWait = reorderWait
        configuration.audioReorderWait = audioReorderWait
        configuration.sendsNACK = true
        // Netem's jitter reorders packets of one frame on each client's link: a gap gets about
        // the spread of that before it is NACKed (as libwebrtc waits on the reordering it has seen).
        // Shown as a browser would, its jitter buffer as deep as the wait for a resend.
        configuration.videoPlayoutDelay = netem == nil ? .zero : reorderWait
        configuration.firstNACKDelay = .microseconds(Int64((netem.map { 2 * $0.jitterMs } ?? 0) * 1_000))
        configuration.resendsOnNACK = true
        configuration.tick = tick
        return configuration
    }
}
