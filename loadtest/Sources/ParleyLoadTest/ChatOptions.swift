/// What the `chat` scenario runs: connected users sending text messages at a fixed total rate to
/// their private and group dialogs.
public struct ChatOptions: Sendable {
    /// Connected users; befriended in groups of 20 (everyone with everyone), or of `groupSize` when larger.
    public var users = 100
    /// Messages sent per second, over all users (open loop: the schedule does not wait for replies).
    public var messagesPerSecond = 100.0
    public var duration: Duration = .seconds(10)
    /// Members of each group dialog (0: private dialogs only).
    public var groupSize = 5
    /// Share of messages that go to group dialogs.
    public var groupShare = 0.5
    /// How long to wait after the last send for replies and deliveries still on their way.
    public var drain: Duration = .seconds(10)
    /// Sockets of one more user who floods the node with read receipts while the chat runs
    /// (`ChatFlooder`); 0: none.
    public var flooderSockets = 0

    public init() {}
}
