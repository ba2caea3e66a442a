import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Many messages in a row over the socket reach the other side complete and in order. Prints
/// the delivery latency and rate it saw (a figure for the notes, not a goal checked here).
@Suite struct ChatDeliveryTests {
    @Test func aBurstOfMessagesArrivesCompleteAndInOrder() async throws {
        let parley = try await TestParley.start()
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let (sender, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (receiver, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { sender.close(); receiver.close() }

            let count = 300
            var sentAt: [String: Date] = [:]
            let start = Date()
            for n in 0..<count {
                sentAt["m\(n)"] = Date()
                sender.sendRaw(#"{"id":"s\#(n)","type":"message.send","dialogId":"\#(dialog)","clientMessageId":"m\#(n)","kind":"text","text":"message \#(n)"}"#)
            }
            var latencies: [Double] = []
            var order: [String] = []
            for _ in 0..<count {
                let frame = try await receiver.next(timeout: .seconds(20)) { $0.type == "message.new" }
                let id = frame.message?["clientMessageId"] as? String ?? ""
                order.append(id)
                if let sent = sentAt[id] { latencies.append(Date().timeIntervalSince(sent)) }
            }
            let elapsed = Date().timeIntervalSince(start)
            #expect(order == (0..<count).map { "m\($0)" })
            let sorted = latencies.sorted()
            print("chat delivery: \(count) messages in \(String(format: "%.2f", elapsed)) s = \(Int(Double(count) / elapsed)) msg/s; latency p50 \(Int(sorted[sorted.count / 2] * 1000)) ms, p99 \(Int(sorted[sorted.count * 99 / 100] * 1000)) ms (debug build, one SQLite writer)")
        }
    }
}
