import ParleySRTP

/// What a ``MediaClient`` offers and sends: its SRTP profiles, payload types, mids and the media
/// it generates. The defaults match what Chrome offers for Opus and VP8.
public struct MediaClientConfiguration: Sendable {
    /// SRTP protection profiles for `use_srtp`, in preference order (RFC 5764 §4.1.1).
    public var srtpProfiles: [SRTPProfile]
    /// Dynamic payload type for `opus/48000/2` (RFC 7587).
    public var audioPayloadType: UInt8
    /// Dynamic payload type for `VP8/90000` (RFC 7741); the next one is offered as its RTX.
    public var videoPayloadType: UInt8
    /// BUNDLE mids of the audio and video sections (RFC 8843).
    public var mids: (audio: String, video: String)
    /// The RFC 8285 one-byte extension id carrying the mid (`urn:ietf:params:rtp-hdrext:sdes:mid`).
    public var midExtensionID: UInt8
    /// Frequency of the tone sent as audio, in Hz.
    public var toneFrequency: Double
    /// Size of the `MovingPattern` video: at least 256×64, even.
    public var videoWidth: Int
    public var videoHeight: Int
    /// Video frame rate; the RTP clock advances 90 000 / fps per frame.
    public var framesPerSecond: Int
    /// VP8 target bitrate in kbit/s.
    public var videoBitrateKbps: Int
    /// Largest RTP packet before SRTP (header + extension + payload), in bytes.
    public var maxRTPPacketSize: Int
    /// Local address to bind the UDP socket to (or to connect the TCP one from).
    public var bindHost: String
    /// UDP, or ICE over TCP to the answer's passive TCP candidate (RFC 6544, RFC 4571 framing).
    public var transport: MediaTransport
    /// CNAME in the offer's `a=ssrc` lines (RFC 7022).
    public var cname: String
    /// Media encoded once and replayed by every client that shares it, instead of running libopus
    /// and libvpx per client; receivers then also check each frame byte for byte against it.
    /// Nil encodes live. Must be built from a configuration with the same tone, size and rate.
    public var sharedMedia: PreEncodedMedia?
    /// Whether received media is decoded (libopus, libvpx) and the tone and frame numbers
    /// checked. Without it no decoder is created; with ``sharedMedia`` frames are still verified.
    public var decodesMedia: Bool
    /// The RFC 8285 one-byte extension id offered for abs-send-time (1…14), which each RTP
    /// packet then carries for one-way latency; 0 offers and sends none.
    public var absSendTimeExtensionID: UInt8
    /// A netem-like impairment of this client's link, applied in user space to every datagram
    /// both ways (UDP only); nil for the link as it is.
    public var impairment: LinkImpairment?
    /// How long received video after a gap waits for the missing packets (reordered, or resent
    /// after a NACK) before the gap is given up; zero hands everything on as it comes.
    public var videoReorderWait: Duration = .zero
    /// The same for audio: how long audio after a gap waits before the gap is concealed.
    public var audioReorderWait: Duration = .zero
    /// Whether the receiver asks for missing video packets with generic NACKs (RFC 4585 §6.2.1).
    public var sendsNACK = false
    /// How long a gap may fill by itself (packets reordered on the way) before its first NACK.
    public var firstNACKDelay: Duration = .zero
    /// How far behind its media time the receiver shows video (a jitter buffer's target delay),
    /// for the freeze count; zero counts frames as they complete.
    public var videoPlayoutDelay: Duration = .zero
    /// Whether a NACK about our video is answered by sending the packets again as they were
    /// (same SSRC and sequence number, as libwebrtc does when the answer has no RTX), from the
    /// last ``MediaSender/historySize`` video packets.
    public var resendsOnNACK = false
    /// How often the client wakes to send what is due (and to release held video) when nothing
    /// arrives: finer is steadier media, coarser is cheaper with hundreds of clients.
    public var tick: Duration = .milliseconds(5)

    public init(
        srtpProfiles: [SRTPProfile] = [.aeadAES128GCM, .aes128CMHMACSHA1_80], audioPayloadType: UInt8 = 111,
        videoPayloadType: UInt8 = 96, mids: (audio: String, video: String) = ("0", "1"), midExtensionID: UInt8 = 1,
        toneFrequency: Double = 440, videoWidth: Int = 320, videoHeight: Int = 240, framesPerSecond: Int = 30,
        videoBitrateKbps: Int = 300, maxRTPPacketSize: Int = 1_200, bindHost: String = "127.0.0.1",
        cname: String = "parley-media-client", sharedMedia: PreEncodedMedia? = nil, decodesMedia: Bool = true,
        absSendTimeExtensionID: UInt8 = 3, transport: MediaTransport = .udp
    ) {
        self.srtpProfiles = srtpProfiles
        self.audioPayloadType = audioPayloadType
        self.videoPayloadType = videoPayloadType
        self.mids = mids
        self.midExtensionID = midExtensionID
        self.toneFrequency = toneFrequency
        self.videoWidth = videoWidth
        self.videoHeight = videoHeight
        self.framesPerSecond = framesPerSecond
        self.videoBitrateKbps = videoBitrateKbps
        self.maxRTPPacketSize = maxRTPPacketSize
        self.bindHost = bindHost
        self.cname = cname
        self.sharedMedia = sharedMedia
        self.decodesMedia = decodesMedia
        self.absSendTimeExtensionID = absSendTimeExtensionID
        self.transport = transport
        impairment = nil
    }
}
