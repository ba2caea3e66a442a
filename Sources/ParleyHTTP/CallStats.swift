/// How many calls are in each state right now, and how many have ended since start.
/// The calls service supplies it through `Operations.calls`; until then it is all zeros.
public struct CallStats: Sendable, Equatable, Encodable {
    /// Invited, not yet answered.
    public var ringing: Int
    public var active: Int
    /// Ended since the process started (a counter).
    public var ended: UInt64

    public init(ringing: Int = 0, active: Int = 0, ended: UInt64 = 0) {
        self.ringing = ringing
        self.active = active
        self.ended = ended
    }

    public static let zero = CallStats()
}
