import CoreMetrics
import Foundation
import ParleyCore

extension EventLog {
    /// Times each new message from being numbered for a recipient to its frame queued on the
    /// recipient's live sockets (the commit it waits for included):
    /// `parley_message_delivery_seconds`.
    public func timeMessageDelivery(factory: any MetricsFactory) {
        let delivered = CoreMetrics.Timer(label: "parley_message_delivery_seconds", factory: factory)
        onDelivered { events in
            let now = Date()
            for stored in events {
                guard stored.type == "message.new" else { continue }
                delivered.record(Duration.seconds(max(0, now.timeIntervalSince(stored.createdAt))))
            }
        }
    }
}
