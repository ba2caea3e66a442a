import Foundation
import HummingbirdTesting
import Testing

/// Ann and Bo, signed up, friends, each on a realtime socket: where the media call tests start.
struct TwoFriendsOnline {
    let ann: TestUser, bo: TestUser
    let annSocket: RealtimeClient, boSocket: RealtimeClient

    static func start(_ parley: TestParley, _ client: some TestClientProtocol) async throws -> TwoFriendsOnline {
        let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
        let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
        try await client.befriend(ann, bo)
        let (annSocket, _) = try await RealtimeClient.connect(port: client.port!, token: ann.accessToken)
        let (boSocket, _) = try await RealtimeClient.connect(port: client.port!, token: bo.accessToken)
        return TwoFriendsOnline(ann: ann, bo: bo, annSocket: annSocket, boSocket: boSocket)
    }

    func close() { annSocket.close(); boSocket.close() }
}
