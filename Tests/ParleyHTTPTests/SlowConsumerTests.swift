import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import ParleyApp
import ParleyCore
import Testing

/// A device that stops reading is closed once it falls too far behind — in frames or in bytes;
/// nobody else waits for it.
@Suite struct SlowConsumerTests {
    @Test func aDeviceThatStopsReadingIsClosedAndOthersCarryOn() async throws {
        try await stalledDeviceIsClosed { $0.mailboxCapacity = 64 }
    }

    /// The frame bound is far away (100 000); long messages reach the byte bound first.
    @Test func aDeviceThatStopsReadingIsClosedPastTheBytesItMayHaveWaiting() async throws {
        try await stalledDeviceIsClosed { $0.mailboxCapacity = 100_000; $0.mailboxBytes = 256 << 10 }
    }

    /// A page of `sync` far larger than the byte bound (100 long messages, ~400 KB, against
    /// 64 KiB) goes at the pace the device reads it, and arrives whole.
    @Test func aSyncPageLargerThanTheByteBoundArrivesWhole() async throws {
        let parley = try await TestParley.start { $0.mailboxBytes = 64 << 10; $0.messagesPerMinute = 100_000 }
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let text = String(repeating: "y", count: 3900)
            for n in 0..<100 {
                #expect(try await client.sendText(ann, dialog, "\(n) \(text)").status == .created)
            }
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { boSocket.close() }
            let reply = try await boSocket.command("sync", ["since": 0])
            #expect(reply.ok == true, "\(reply.text)")
            let messages = try await boSocket.events("message.new", count: 100)
            #expect(messages.compactMap { ($0.message?["text"] as? String)?.prefix(while: { $0 != " " }) } == (0..<100).map { Substring("\($0)") })
            #expect(await !boSocket.isClosed)
        }
    }

    private func stalledDeviceIsClosed(_ bound: (inout ParleyConfiguration) -> Void) async throws {
        let parley = try await TestParley.start { bound(&$0); $0.messagesPerMinute = 100_000 }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            let cy = try await client.signUp("Cy", "cy@example.com", outbox: parley.outbox)
            try await client.befriend(ann, bo)
            let dialog = try await client.privateDialog(ann, with: bo)

            // Bo's device: a WebSocket upgrade, then it never reads a byte.
            let stalled = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .channelOption(.autoRead, value: false)
                .channelOption(.socketOption(.so_rcvbuf), value: 2048)
                .connect(host: "127.0.0.1", port: client.port!).get()
            let upgrade = "GET /v1/realtime?token=\(bo.accessToken) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            try await stalled.writeAndFlush(ByteBuffer(string: upgrade)).get()
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (cySocket, _) = try await RealtimeClient.connect(port: client.port!, token: cy.accessToken)
            defer { annSocket.close(); cySocket.close() }
            try await Task.sleep(for: .milliseconds(200))
            #expect(parley.parts.events.hub.connectionCount == 3)

            // Ann writes long messages to Bo's stalled device (megabytes: the kernel's socket buffers
            // take a few first), in batches so that her own replies never pile up past the bound.
            let text = String(repeating: "x", count: 3900)
            for batch in 0..<100 {
                for n in batch * 20..<(batch + 1) * 20 {
                    annSocket.sendRaw(#"{"id":"t\#(n)","type":"message.send","dialogId":"\#(dialog)","clientMessageId":"c\#(n)","kind":"text","text":"\#(text)"}"#)
                }
                let last = "t\((batch + 1) * 20 - 1)"
                _ = try await annSocket.next(timeout: .seconds(30)) { $0["replyTo"] as? String == last }
                if !parley.parts.events.hub.isOnline(UserID(rawValue: bo.id)) { break }
            }
            for _ in 0..<100 where parley.parts.events.hub.isOnline(UserID(rawValue: bo.id)) {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(!parley.parts.events.hub.isOnline(UserID(rawValue: bo.id)), "the stalled device was closed")
            #expect(try await cySocket.command("ping").ok == true, "others carry on")
            #expect(try await annSocket.command("ping").ok == true)
            try? await stalled.close()
        }
    }
}
