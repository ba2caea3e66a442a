/// Chat's knobs, read from configuration by the app.
public struct ChatSettings: Sendable {
    public var publicBaseURL: String
    public var maxImageBytes: Int
    public var maxVideoBytes: Int
    public var maxAudioBytes: Int
    /// Bytes of attachments one user may have stored, all kinds together; past it `quota_exceeded`.
    public var attachmentQuotaBytes = 1 << 30
    /// Uploads one user may have under way at once (on one node); past it `rate_limited`. Each
    /// holds a connection and a staged file, and room in the quota while it arrives.
    public var concurrentUploadsPerUser = 4
    /// Messages one user may send per minute, all dialogs together; past it `rate_limited`.
    public var messagesPerMinute = 600
    /// Message requests (first messages to strangers) one user may open per hour; past it `rate_limited`.
    public var messageRequestsPerHour = 20
    /// Groups one user may create, rename, re-picture, add to or remove from per hour, together;
    /// past it `rate_limited`. Each tells every member (up to 256) with an event stored for them.
    public var groupChangesPerHour = 200

    public init(publicBaseURL: String, maxImageBytes: Int = 10 << 20, maxVideoBytes: Int = 100 << 20, maxAudioBytes: Int = 20 << 20) {
        self.publicBaseURL = publicBaseURL
        self.maxImageBytes = maxImageBytes
        self.maxVideoBytes = maxVideoBytes
        self.maxAudioBytes = maxAudioBytes
    }

    public var largestUpload: Int { max(maxImageBytes, maxVideoBytes, maxAudioBytes) }
}
