import Foundation
import ParleyTestSupport
import Testing

/// The real `parley` process with `tracing.otlpEndpoint` set exports its spans with swift-otel
/// over OTLP/HTTP to a receiver that decodes them with opentelemetry-proto
/// (Tests/Peers/otlp_standin.py): a span per HTTP request and realtime command, and one trace
/// per call from the caller's invite to the first media — both relay legs, the callee ringing,
/// the accept and the first media packet through the relay, each a child of the invite's span.
@Suite(.serialized, .liveMedia, .timeLimit(.minutes(2)))
struct TracingTests {
    @Test func aCallIsOneTraceFromInviteToFirstMediaExportedOverOTLP() async throws {
        let python = try AiortcPeer.python()
        let receiver = try ChildLines(python: python, script: "otlp_standin.py", name: "the OTLP receiver")
        defer { receiver.kill() }
        let receiverPort = try #require(try await receiver.next(timeout: .seconds(20))["port"] as? Int)

        let live = try await LiveFriends.start(prefix: "parley-tracing", environment: [
            "TRACING_OTLP_ENDPOINT": "http://127.0.0.1:\(receiverPort)/v1/traces",
            "TRACING_SERVICE_NAME": "parley-tracing-test",
        ])
        defer { live.server.kill9(); try? FileManager.default.removeItem(at: live.data) }
        let (annSocket, _) = try await RealtimeClient.connect(port: live.port, token: live.ann.token)
        let (boSocket, _) = try await RealtimeClient.connect(port: live.port, token: live.bo.token)
        defer { annSocket.close(); boSocket.close() }
        let call = try await AiortcCall.place(python: python, annSocket: annSocket, boSocket: boSocket, bo: live.bo.id)
        defer { call.end() }

        // Spans arrive in batches (one a second); read until the call's last step is there.
        var spans: [[String: Any]] = []
        func named(_ name: String) -> [[String: Any]] { spans.filter { $0["name"] as? String == name } }
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline, named("call first_media").isEmpty || named("realtime call.accept").isEmpty {
            let line = try await receiver.next(timeout: deadline - ContinuousClock.now)
            try #require(line["refused"] == nil, "the receiver refused an export: \(line)")
            spans.append(line)
        }
        #expect(try await annSocket.command("call.hangup", ["callId": call.callID]).ok == true)
        #expect(spans.allSatisfy { $0["service"] as? String == "parley-tracing-test" })
        // HTTP: a span per request, named by its route.
        #expect(spans.contains { ($0["name"] as? String)?.contains("/v1/auth/register") == true })
        // Realtime: a span per command.
        let invite = try #require(named("realtime call.invite").first, "\(spans.map { $0["name"] ?? "" })")
        #expect((invite["attributes"] as? [String: Any])?["parley.command"] as? String == "call.invite")
        #expect(named("realtime call.accept").count == 1)
        // The call: one trace from the caller's invite to the first media, every step a child of
        // the invite's span — the callee's leg too, though made by the callee's command.
        let trace = try #require(invite["traceId"] as? String)
        let inviteSpan = try #require(invite["spanId"] as? String)
        let steps = spans.filter { $0["traceId"] as? String == trace && $0["spanId"] as? String != inviteSpan }
        #expect(steps.compactMap { $0["name"] as? String }.sorted()
                == ["call accepted", "call first_media", "call incoming", "relay leg", "relay leg"], "\(steps)")
        for step in steps {
            #expect(step["parentSpanId"] as? String == inviteSpan, "\(step)")
            #expect((step["attributes"] as? [String: Any])?["parley.call"] as? String == call.callID, "\(step)")
        }
    }
}
