import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOWebSocket
import ParleyApp
import ParleyCore
import Testing

/// One user asking too much of the node — cheap requests and commands, from several sockets —
/// is refused past their budget (`limits.requestsPerSecond`, `limits.requestBurst`), and a socket
/// that keeps sending is read no further until the next share is due; nobody else is refused or
/// waits for it.
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

    @Test func realtimeCommandsPastTheBudgetAreRefusedAndAFloodIsNotRead() async throws {
        let parley = try await TestParley.start { $0.requestsPerSecond = 0.01; $0.requestBurst = 20 }
        try await parley.test(.live) { client in
            let (ann, bo, dialog) = try await client.annAndBoInTheirDialog(outbox: parley.outbox)
            let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
            let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
            defer { annSocket.close(); boSocket.close() }

            // The upgrade took one of Ann's 20 (annAndBoInTheirDialog's requests took others);
            // read receipts, pings, syncs: each one more, until one is refused.
            var admitted = 0
            var refusal: Frame?
            while refusal == nil, admitted <= 20 {
                let reply = try await annSocket.command("sync", ["since": 0])
                if reply.ok == true { admitted += 1 } else { refusal = reply }
            }
            let error = try #require(refusal?["error"] as? [String: Any], "never refused after \(admitted)")
            #expect(admitted < 20 && error["code"] as? String == "rate_limited" && error["retryAfter"] as? Int ?? 0 >= 1, "\(error)")

            // Her budget is spent everywhere: another socket is not opened, a message over HTTP is
            // refused and not stored; Bo, on the same node, is answered as ever.
            let upgrade = try await client.call(.get, "/v1/realtime", token: ann.accessToken)
            #expect(upgrade.status == .tooManyRequests && upgrade.errorCode == "rate_limited")
            #expect(try await client.sendText(ann, dialog, "over", clientID: "over").errorCode == "rate_limited")
            #expect(try await boSocket.command("ping").ok == true)
            #expect(try await client.sendText(bo, dialog, "still here").status == .created)
            #expect(try await client.history(bo, dialog).allSatisfy { $0["clientMessageId"] as? String != "over" })

            // Ann's device keeps sending without waiting for answers: past her budget her socket
            // reads nothing more for the `retryAfter` her refusal said (100 s here). The flood waits in
            // the connection, unread and unanswered (not hundreds of refusals), and the socket stays.
            for n in 0..<400 { annSocket.sendRaw(#"{"id":"f\#(n)","type":"ping"}"#) }
            try await Task.sleep(for: .seconds(1))
            let answered = await annSocket.received().filter { ($0["replyTo"] as? String)?.hasPrefix("f") == true }
            #expect(answered.isEmpty, "\(answered.map(\.text).prefix(3))")
            #expect(await !annSocket.isClosed)
            #expect(try await boSocket.command("ping").ok == true, "Bo is answered as ever")
        }
    }
}
