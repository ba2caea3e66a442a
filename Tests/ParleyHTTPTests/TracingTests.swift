import Foundation
import ParleyTestSupport
import Testing

/// The real `parley` process with `tracing.otlpEndpoint` set exports its spans with swift-otel
/// over OTLP/HTTP to a receiver that decodes them with opentelemetry-proto
/// (Tests/Peers/otlp_standin.py): a span per HTTP request and realtime command, and one trace
/// per call — the caller's invite, both relay legs, the callee ringing and the accept. (The
/// first-media step needs media: CallMetricsTests covers when it is timed.)
@Suite(.serialized, .timeLimit(.minutes(2)))
struct TracingTests {
    @Test func requestsCommandsAndACallAreExportedAsTracesOverOTLP() async throws {
        let receiver = try ChildLines(python: try AiortcPeer.python(), script: "otlp_standin.py", name: "the OTLP receiver")
        defer { receiver.kill() }
        let receiverPort = try #require(try await receiver.next(timeout: .seconds(20))["port"] as? Int)

        let live = try await LiveFriends.start(prefix: "parley-tracing", environment: [
            "TRACING_OTLP_ENDPOINT": "http://127.0.0.1:\(receiverPort)/v1/traces",
            "TRACING_SERVICE_NAME": "parley-tracing-test",
        ])
        defer { live.server.kill9(); try? FileManager.default.removeItem(at: live.data) }
        let (annSocket, boSocket, callID) = try await live.answeredCall()
        defer { annSocket.close(); boSocket.close() }
        #expect(try await annSocket.command("call.hangup", ["callId": callID]).ok == true)

        // Spans arrive in batches (one a second); read until the call's are all there.
        var spans: [[String: Any]] = []
        func named(_ name: String) -> [[String: Any]] { spans.filter { $0["name"] as? String == name } }
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline,
              named("call accepted").isEmpty || named("relay leg").count < 2 || named("realtime call.accept").isEmpty {
            let line = try await receiver.next(timeout: deadline - ContinuousClock.now)
            try #require(line["refused"] == nil, "the receiver refused an export: \(line)")
            spans.append(line)
        }
        #expect(spans.allSatisfy { $0["service"] as? String == "parley-tracing-test" })
        // HTTP: a server span per request, named by its route.
        #expect(spans.contains { ($0["name"] as? String)?.contains("/v1/auth/register") == true })
        // Realtime: a span per command.
        let inviteSpan = try #require(named("realtime call.invite").first, "\(spans.map { $0["name"] ?? "" })")
        #expect((inviteSpan["attributes"] as? [String: Any])?["parley.command"] as? String == "call.invite")
        #expect(!named("realtime call.accept").isEmpty)
        // The call: one trace from the caller's invite, the callee's leg and accept in it too.
        let trace = try #require(inviteSpan["traceId"] as? String)
        let call = spans.filter { $0["traceId"] as? String == trace }.compactMap { $0["name"] as? String }
        #expect(call.filter { $0 == "relay leg" }.count == 2, "\(call)")
        #expect(call.contains("call incoming") && call.contains("call accepted"), "\(call)")
        let legs = named("relay leg")
        #expect(legs.allSatisfy { ($0["attributes"] as? [String: Any])?["parley.call"] as? String == callID })
    }
}
