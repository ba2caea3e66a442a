/// CPU time and resident memory of this process, as the kernel counts them.
///
/// Parsing is pure (text in, figures out) so it is tested with sample files; reading the
/// files of the running process is `ProcessStats.current()` (ProcessStats+Reading.swift).
public struct ProcessStats: Sendable, Equatable {
    /// User plus system CPU time consumed so far.
    public var cpuSeconds: Double
    /// Resident set size.
    public var residentBytes: UInt64

    public init(cpuSeconds: Double, residentBytes: UInt64) {
        self.cpuSeconds = cpuSeconds
        self.residentBytes = residentBytes
    }

    public static let zero = ProcessStats(cpuSeconds: 0, residentBytes: 0)

    /// Combines `/proc/self/stat` and `/proc/self/statm` text; nil when either does not parse
    /// or the divisors are not positive.
    public static func parse(stat: String, statm: String, ticksPerSecond: Int, pageSize: Int) -> ProcessStats? {
        guard ticksPerSecond > 0, pageSize > 0,
              let ticks = cpuTicks(stat: stat), let pages = residentPages(statm: statm)
        else { return nil }
        return ProcessStats(
            cpuSeconds: Double(ticks) / Double(ticksPerSecond),
            residentBytes: pages.multipliedReportingOverflow(by: UInt64(pageSize)).partialValue)
    }

    /// `utime + stime` (fields 14 and 15 of proc_pid_stat(5)) in clock ticks.
    ///
    /// Field 2, `comm`, is the executable name in parentheses and may itself hold spaces and
    /// parentheses, so fields are counted from after the *last* `)`: there, field 3 (`state`)
    /// comes first and utime is the 12th token.
    public static func cpuTicks(stat: String) -> UInt64? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 13, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        return user &+ system
    }

    /// The second field of proc_pid_statm(5), `resident`, in pages.
    public static func residentPages(statm: String) -> UInt64? {
        let fields = statm.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2 else { return nil }
        return UInt64(fields[1])
    }
}
