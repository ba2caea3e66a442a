import Foundation

/// Offers captured from real clients (shared/fixtures/sdp), for tests that need a realistic one.
enum Fixtures {
    /// aiortc 1.16: audio (Opus 96, G722, PCMU, PCMA) + video (VP8 97 with RTX 98, H264), BUNDLE.
    static let aiortcOffer = """
        v=0
        o=- 4004337425 4004337425 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 50831 UDP/TLS/RTP/SAVPF 96 9 0 8
        c=IN IP4 127.0.0.1
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:e9432c40-4fed-4241-8861-0123e5d47855 057d3502-6d0d-442d-a253-21b389cf785a
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:428646249 cname:ef89ce9e-f51a-444e-8a65-54d3ba498a99
        a=rtpmap:96 opus/48000/2
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 50831 typ host
        a=end-of-candidates
        a=ice-ufrag:YkJn
        a=ice-pwd:2uU7yPyO1KAgnOB3pqY6TO
        a=fingerprint:sha-256 BF:58:77:6A:77:2D:4F:09:E2:41:AC:31:E6:B0:F6:B8:EB:37:49:64:49:2D:18:C6:27:87:C2:87:F8:45:9A:CC
        a=fingerprint:sha-384 75:F1:61:8B:88:B5:6F:69:14:07:4B:40:A9:F8:84:36:91:25:5B:31:75:54:E5:09:7B:69:2E:18:1C:C8:D1:46:DC:B7:2B:A0:04:3C:AD:09:AE:4C:8A:1E:80:DF:5B:AF
        a=fingerprint:sha-512 7D:48:33:6D:87:95:9A:A0:CE:63:1B:58:60:FC:53:62:2F:5F:45:58:DE:8D:0D:7F:0D:BC:77:1C:A2:A2:F9:5B:29:09:C0:CC:84:5D:4F:65:75:31:6A:A4:35:1A:38:13:B6:56:F0:78:B5:19:2A:5E:A2:B8:C9:FB:F4:57:CB:7F
        a=setup:actpass
        m=video 44648 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 127.0.0.1
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:e9432c40-4fed-4241-8861-0123e5d47855 dd18e80d-3df4-461a-8e79-2c42abab6073
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2052986180 2352205867
        a=ssrc:2052986180 cname:ef89ce9e-f51a-444e-8a65-54d3ba498a99
        a=ssrc:2352205867 cname:ef89ce9e-f51a-444e-8a65-54d3ba498a99
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:16572de626da4e5384a0ce2d0d93678a 1 udp 2130706431 127.0.0.1 44648 typ host
        a=end-of-candidates
        a=ice-ufrag:YkJn
        a=ice-pwd:2uU7yPyO1KAgnOB3pqY6TO
        a=fingerprint:sha-256 BF:58:77:6A:77:2D:4F:09:E2:41:AC:31:E6:B0:F6:B8:EB:37:49:64:49:2D:18:C6:27:87:C2:87:F8:45:9A:CC
        a=fingerprint:sha-384 75:F1:61:8B:88:B5:6F:69:14:07:4B:40:A9:F8:84:36:91:25:5B:31:75:54:E5:09:7B:69:2E:18:1C:C8:D1:46:DC:B7:2B:A0:04:3C:AD:09:AE:4C:8A:1E:80:DF:5B:AF
        a=fingerprint:sha-512 7D:48:33:6D:87:95:9A:A0:CE:63:1B:58:60:FC:53:62:2F:5F:45:58:DE:8D:0D:7F:0D:BC:77:1C:A2:A2:F9:5B:29:09:C0:CC:84:5D:4F:65:75:31:6A:A4:35:1A:38:13:B6:56:F0:78:B5:19:2A:5E:A2:B8:C9:FB:F4:57:CB:7F
        a=setup:actpass
        """

    /// The same offer with its audio and video formats replaced by H264 only: nothing the relay takes.
    static var h264OnlyOffer: String {
        aiortcOffer.replacingOccurrences(of: "m=audio 50831 UDP/TLS/RTP/SAVPF 96 9 0 8", with: "m=audio 50831 UDP/TLS/RTP/SAVPF 9 0 8")
            .replacingOccurrences(of: "m=video 44648 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102", with: "m=video 44648 UDP/TLS/RTP/SAVPF 99 100 101 102")
    }
}
