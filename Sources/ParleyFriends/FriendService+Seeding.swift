import ParleyCore

extension FriendService {
    /// Makes two accounts friends outright, in one transaction: no request, no events. For
    /// accounts an operator has just created (`POST /admin/users`), which nobody is signed in
    /// to and which have no blocks yet; people become friends through `sendRequest`/`accept`.
    public func seedFriendship(_ a: UserID, _ b: UserID) async throws {
        guard a != b else { throw FriendErrors.yourself }
        _ = try await store.befriend(a, b, at: clock.now())
    }
}
