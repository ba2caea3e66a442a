/// How one user stands to another, as the viewer sees it (API.md `relationship`).
public enum Relationship: String, Sendable, Codable, CaseIterable {
    case none, friend, requestSent, requestReceived, blocked
}

/// Answers how a viewer stands to others (Friends implements it).
public protocol RelationshipDirectory: Sendable {
    func relationships(of viewer: UserID, to others: [UserID]) async throws -> [UserID: Relationship]
    /// Users who blocked `viewer`: they must not show up in the viewer's search.
    func blockers(of viewer: UserID) async throws -> Set<UserID>
}
