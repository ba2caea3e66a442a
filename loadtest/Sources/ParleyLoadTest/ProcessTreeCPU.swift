import Foundation

/// CPU time of another process and its children, read from /proc: what a run reports for a
/// process beside the server — PostgreSQL, whose work is done by one backend process per
/// connection, children of the postmaster. Children that exited count through the parent's
/// `cutime`/`cstime` once it has reaped them.
public struct ProcessTreeCPU: Sendable, Equatable {
    /// A name for the report ("postgresql").
    public var name: String
    public var pid: Int32

    public init(name: String, pid: Int32) {
        self.name = name
        self.pid = pid
    }

    /// `NAME=PID`, as `--watch` takes it.
    public init?(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, !parts[0].isEmpty, let pid = Int32(parts[1]), pid > 0 else { return nil }
        self.init(name: String(parts[0]), pid: pid)
    }

    /// The fields of a proc_pid_stat(5) line a tree's CPU needs, in clock ticks.
    struct Stat: Equatable {
        var pid: Int32
        var parent: Int32
        var own: UInt64
        var reapedChildren: UInt64
    }

    /// pid, ppid (field 4), utime + stime (14, 15), cutime + cstime (16, 17). Fields are counted
    /// from after the last `)`, since the name in field 2 may hold spaces and parentheses.
    static func parse(stat: String) -> Stat? {
        guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
              let pid = Int32(stat[..<open].trimmingCharacters(in: .whitespaces)) else { return nil }
        let fields = stat[stat.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 15, let parent = Int32(fields[1]),
              let user = UInt64(fields[11]), let system = UInt64(fields[12]),
              let childUser = Int64(fields[13]), let childSystem = Int64(fields[14]) else { return nil }
        return Stat(pid: pid, parent: parent, own: user &+ system, reapedChildren: UInt64(max(0, childUser + childSystem)))
    }

    /// The root's own and reaped children's ticks plus its live children's own: postgres backends
    /// are the postmaster's direct children.
    static func ticks(root: Int32, stats: [Stat]) -> UInt64? {
        guard let parent = stats.first(where: { $0.pid == root }) else { return nil }
        return stats.filter { $0.parent == root }.reduce(parent.own &+ parent.reapedChildren) { $0 &+ $1.own }
    }

    /// CPU seconds so far of the process and its children; nil when it is gone or /proc is not there.
    public func cpuSeconds() -> Double? {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let stats = entries.compactMap { entry -> Stat? in
            guard Int32(entry) != nil, let text = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { return nil }
            return Self.parse(stat: text)
        }
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        guard ticksPerSecond > 0, let ticks = Self.ticks(root: pid, stats: stats) else { return nil }
        return Double(ticks) / Double(ticksPerSecond)
        #else
        return nil
        #endif
    }
}
