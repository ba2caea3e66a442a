import NIOCore

/// A receiving leg's wait for a video key frame: how often the relay asked the sender and when
/// it last did. A sender may ignore a request that comes soon after another (Chromium takes one
/// key frame request per 300 ms), and the frame it sends may reach a receiver that was not
/// connected yet; so the relay asks again until a key frame has gone to this receiver.
struct KeyFrameWait {
    var requests: Int
    var lastRequest: NIODeadline

    /// Time between requests: longer than the senders' own hold-off between key frames.
    static let interval = TimeAmount.milliseconds(500)
    /// Requests before giving up (the receiver's own PLIs still go through to the sender).
    static let limit = 10

    /// Whether to ask again at `now`.
    func isDue(at now: NIODeadline) -> Bool {
        requests < Self.limit && now - lastRequest >= Self.interval
    }
}
