import Foundation
import ParleyCore
import ParleyProtocol

/// Where calls live when several nodes share one database. A call's relay legs and state live
/// on the node it was placed on; every node can find which one (a directory of the people in
/// calls), and a command about a call held elsewhere is carried out there (`CallRequest`).
/// `LocalCallNetwork`: one node, every call is here. `SharedCallNetwork`: the nodes on one
/// PostgreSQL, the directory a table and the requests on the node bus.
public protocol CallNetwork: Sendable {
    /// Whether other nodes exist at all (nothing to look up when not).
    var isShared: Bool { get }
    /// This node's id.
    var node: String { get }
    /// Reserves both people for call `id`, placed on this node: `.reserved`, or what stands in
    /// the way.
    func reserve(_ call: CallParties) async throws -> CallReservation
    /// The call was answered (for the record a surviving node writes if this one dies).
    func answered(_ id: CallID, at time: Date) async
    /// The call ended: both people are free again.
    func release(_ id: CallID) async
    /// The node holding call `id`, if it is live anywhere.
    func node(of id: CallID) async -> String?
    /// The live calls of `user` held on other nodes.
    func callsElsewhere(of user: UserID) async -> [(call: CallID, node: String)]
    /// Carries `request` out on `node` and brings back its reply.
    func send(_ request: CallRequest, to node: String) async throws(ParleyError) -> CallReply
    /// This node stops: nothing more is renewed or looked after.
    func stop() async
}

/// The people of a call being placed, as the directory keeps them.
public struct CallParties: Sendable, Equatable {
    public var id: CallID
    public var caller: UserID
    public var callee: UserID
    public var media: CallMedia
    public var startedAt: Date

    public init(id: CallID, caller: UserID, callee: UserID, media: CallMedia, startedAt: Date) {
        self.id = id
        self.caller = caller
        self.callee = callee
        self.media = media
        self.startedAt = startedAt
    }
}

/// What reserving the people of a new call came to.
public enum CallReservation: Sendable, Equatable {
    case reserved
    /// Someone is in a call held on this node: the call book decides (busy, glare, already in a call).
    case here
    /// The caller is in a call on another node.
    case callerBusy
    /// The callee is in a call on another node: ended `busy`.
    case calleeBusy
    /// The callee's own call to the caller rings on `node`: answer that one (glare across nodes).
    case crossing(CallID, node: String)
}

/// One node: the call book holds every call.
public struct LocalCallNetwork: CallNetwork {
    public init() {}
    public var isShared: Bool { false }
    public var node: String { "local" }
    public func reserve(_ call: CallParties) async throws -> CallReservation { .reserved }
    public func answered(_ id: CallID, at time: Date) async {}
    public func release(_ id: CallID) async {}
    public func node(of id: CallID) async -> String? { nil }
    public func callsElsewhere(of user: UserID) async -> [(call: CallID, node: String)] { [] }
    public func send(_ request: CallRequest, to node: String) async throws(ParleyError) -> CallReply {
        throw CallErrors.notFound
    }
    public func stop() async {}
}
