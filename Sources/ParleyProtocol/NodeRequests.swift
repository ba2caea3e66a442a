import ParleyCore

/// Asking another node of the installation to do something, and waiting for its answer: how a
/// command reaches the node that holds what it is about (a call's legs and state live on the
/// node it was placed on). Bodies are JSON of the asking module's own types; the bus carries
/// them. One node alone never asks (`LocalCallNetwork` knows every call is here).
public protocol NodeRequests: Sendable {
    /// This node's id on the bus (what other nodes address it by).
    var nodeID: String { get }
    /// Sends `body` under `topic` to `node` and waits for its answer, at most `timeout`:
    /// `NodeRequestErrors.unreachable` when none comes.
    func request(_ body: String, topic: String, to node: String, timeout: Duration) async throws(ParleyError) -> String
    /// How this node answers requests under `topic` (one handler per topic).
    func answer(_ topic: String, with handler: @escaping @Sendable (String) async -> String)
}

public enum NodeRequestErrors {
    public static let unreachable = ParleyError(.unavailable, code: "node_unreachable",
                                                "The server holding this did not answer in time; try again")
}
