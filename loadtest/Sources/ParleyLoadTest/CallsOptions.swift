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

    public init() {}

    /// The media client's configuration for one side.
    func clientConfiguration(shared: PreEncodedMedia, decoding: Bool) -> MediaClientConfiguration {
        var configuration = baseConfiguration
        configuration.sharedMedia = shared
        configuration.decodesMedia = decoding
        return configuration
    }

    /// What the shared media is encoded with.
    var baseConfiguration: MediaClientConfiguration {
        MediaClientConfiguration(videoWidth: videoWidth, videoHeight: videoHeight, framesPerSecond: framesPerSecond,
                                 videoBitrateKbps: videoBitrateKbps, bindHost: bindHost, cname: "parley-loadtest",
                                 transport: transport)
    }
}
