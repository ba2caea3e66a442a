import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOWebSocket
import ParleyApp
import ParleyCore
import Testing

/// One user asking too much of the node — cheap requests and commands, from several sockets —
/// is refused past their budget (`limits.requestsPerSecond`, `limits.requestBurst`), and let go
/// if they keep on; nobody else is refused or waits for it.
@Suite struct RequestBudgetFloodTests {
    @Test func httpRequestsPastTheBudgetAre429WithRetryAfterAndOthersCarryOn() async throws {
        let parley = try await TestParley.start { $0.requestsPerSecond = 0.01; $0.requestBurst = 10; $0.adminToken = MetricsTests.adminToken }
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            var answered: [HTTPResponse.Status] = []
            for _ in 0..<15 { answered.append(try await client.call(.get, "/v1/me", token: ann.accessToken).status) }
            let refused = answered.firstIndex(of: .tooManyRequests) ?? answered.count
            // signUp's own requests (verification, login) are not authenticated: Ann had her whole burst.
            #expect(refused == 10 && answered[refused...].allSatisfy { $0 == .tooManyRequests }, "\(answered)")
            let limited = try await client.call(.get, "/v1/dialogs", token: ann.accessToken)
            #expect(limited.status == .tooManyRequests && limited.errorCode == "rate_limited")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // Pictures and media (a token in the query) take from the same budget.
            #expect(try await client.call(.get, "/v1/avatars/\(ann.id)?token=\(ann.accessToken)").status == .tooManyRequests)
            #expect(try await client.call(.get, "/v1/me", token: bo.accessToken).status == .ok, "Bo has his own budget")
            // Ann was refused seven times (the admin's scrape is not a user's request).
            #expect(try await MetricsTests.scrape(client).value("parley_requests_refused_total", [:]) == 7)
        }
    }

    @Test func realtimeCommandsPastTheBudgetAreRefusedAndAFloodIsLetGo() async throws {
        let parley = try await TestParley.start { $0.requestsPerSecond = 0.01; $0.requestBurst = 20 }
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); boSocket.close() }

            // The upgrade took one of Ann's 20 (annAndBoInTheirDialog's requests took others);
            // read receipts, pings, syncs: each one more.
            var codes: [String] = []
            for _ in 0..<25 {
                let reply = try await annSocket.command("sync", ["since": 0])
                codes.append(reply.ok == true ? "ok" : ((reply["error"] as? [String: Any])?["code"] as? String ?? "?"))
            }
            let firstRefused = codes.firstIndex(of: "rate_limited")
            #expect(firstRefused != nil && firstRefused! < 20 && codes[firstRefused!...].allSatisfy { $0 == "rate_limited" }, "\(codes)")
            // A refused command did nothing, and Bo, on the same node, is answered as ever.
            #expect(try await boSocket.command("ping").ok == true)
            #expect(try await client.sendText(bo, dialog, "still here").status == .created)
            let refused = try await annSocket.command("message.send", ["dialogId": dialog, "clientMessageId": "over", "kind": "text", "text": "x"])
            #expect((refused["error"] as? [String: Any])?["code"] as? String == "rate_limited")
            #expect((refused["error"] as? [String: Any])?["retryAfter"] as? Int ?? 0 >= 1, "\(refused.text)")
            #expect(try await client.history(bo, dialog).allSatisfy { $0["clientMessageId"] as? String != "over" })

            // Ann's device keeps sending without waiting for answers: it is let go (1008), Bo is not.
            for n in 0..<400 { annSocket.sendRaw(#"{"id":"f\#(n)","type":"ping"}"#) }
            for _ in 0..<100 where await !annSocket.isClosed { try await Task.sleep(for: .milliseconds(50)) }
            #expect(await annSocket.isClosed, "the flooding socket was let go")
            let replies = await annSocket.received().filter { ($0["replyTo"] as? String)?.hasPrefix("f") == true }
            #expect(!replies.isEmpty && replies.allSatisfy { $0.errorCode == "rate_limited" }, "\(replies.map(\.text).prefix(3))")
            let close = await annSocket.isClosed ? try await annSocket.closeFrame() : nil
            #expect(close?.closeCode == .policyViolation, "\(String(describing: close))")
            #expect(try await boSocket.command("ping").ok == true)
        }
    }
}
