/// An event with its payload already encoded (`RealtimeEvent.payloadJSON()`), so that the
/// encoding can happen where it costs least: a message's event is encoded by the task that sends
/// it, before the write, not on SQLite's one writer thread inside the commit everyone waits for.
public struct EncodedEvent: Sendable {
    public let event: RealtimeEvent
    public let payloadJSON: String

    public init(_ event: RealtimeEvent) {
        self.event = event
        self.payloadJSON = event.payloadJSON()
    }
}
