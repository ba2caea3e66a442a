import Foundation
import ParleyTestSupport
import Testing

/// A friend call between two aiortc peers through the gateway: Ann invites with her peer's
/// offer, Bo accepts with his, each peer gets its answer and media flows until `end()`.
struct AiortcCall {
    let callID: String
    let annPeer: AiortcPeer, boPeer: AiortcPeer

    static func place(python: String, annSocket: RealtimeClient, boSocket: RealtimeClient, bo: String) async throws -> AiortcCall {
        // --hold: the peers keep their connections until they are killed (a peer that closes
        // DTLS ends the call at once).
        let annPeer = try AiortcPeer(python: python, arguments: ["--hold"])
        let boPeer = try AiortcPeer(python: python, arguments: ["--srtp", "cm80", "--hold"])
        do {
            let annOffer = try #require(try await annPeer.next(timeout: .seconds(30)).sdp)
            let boOffer = try #require(try await boPeer.next(timeout: .seconds(30)).sdp)
            let invite = try await annSocket.command("call.invite", ["to": bo, "media": "video", "sdp": annOffer])
            let callID = try #require(invite["callId"] as? String, "\(invite)")
            try annPeer.send(answer: try #require(invite["sdp"] as? String))
            _ = try await boSocket.next(timeout: .seconds(10)) { $0.type == "call.incoming" }
            let accept = try await boSocket.command("call.accept", ["callId": callID, "sdp": boOffer])
            try boPeer.send(answer: try #require(accept["sdp"] as? String, "\(accept)"))
            _ = try await annSocket.next(timeout: .seconds(10)) { $0.type == "call.accepted" }
            return AiortcCall(callID: callID, annPeer: annPeer, boPeer: boPeer)
        } catch {
            annPeer.kill(); boPeer.kill()
            throw error
        }
    }

    func end() { annPeer.kill(); boPeer.kill() }
}
