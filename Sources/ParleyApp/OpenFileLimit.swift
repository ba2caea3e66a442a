#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging

/// The open-file limit (`RLIMIT_NOFILE`): every connection, socket and file takes a descriptor,
/// and many systems start a process with a soft limit of 1024 — a few hundred devices, each with
/// a realtime socket and a request or two, and the next `accept` fails. At start Parley raises
/// the soft limit to the hard one, as nginx and HAProxy do; the hard limit is the system's to set
/// (systemd's `LimitNOFILE=`, docs/deploying.md).
public enum OpenFileLimit {
    public enum Outcome: Equatable, Sendable {
        /// The soft limit now stands at `to` (the hard limit, or what the system allows under it).
        case raised(from: UInt64, to: UInt64)
        /// It already stood at the hard limit.
        case unchanged(UInt64)
        /// The limit could not be read or set (`errno`); it stays at `soft`.
        case failed(soft: UInt64, hard: UInt64, errno: Int32)
    }

    /// Raises the soft limit to the hard limit.
    public static func raise() -> Outcome {
        var limit = rlimit()
        guard getrlimit(resourceNumber, &limit) == 0 else { return .failed(soft: 0, hard: 0, errno: errno) }
        let soft = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
        let target = limit.rlim_max == rlim_t.max ? ceiling : limit.rlim_max
        guard limit.rlim_cur < target else { return .unchanged(soft) }
        limit.rlim_cur = target
        guard setrlimit(resourceNumber, &limit) == 0 else { return .failed(soft: soft, hard: hard, errno: errno) }
        return .raised(from: soft, to: UInt64(target))
    }

    /// Raises the limit and says so in the log: the figure at `notice`, a failure as a warning.
    public static func raise(logger: Logger) {
        switch raise() {
        case .raised(let from, let to):
            logger.notice("open file limit raised", metadata: ["from": "\(from)", "to": "\(to)"])
        case .unchanged(let limit):
            logger.notice("open file limit", metadata: ["limit": "\(limit)"])
        case .failed(let soft, let hard, let code):
            logger.warning("could not raise the open file limit; connections past it will be refused", metadata: [
                "soft": "\(soft)", "hard": "\(hard)", "error": "\(String(cString: strerror(code)))",
            ])
        }
    }

    /// The soft limit now.
    public static var current: UInt64? {
        var limit = rlimit()
        return getrlimit(resourceNumber, &limit) == 0 ? UInt64(limit.rlim_cur) : nil
    }

    #if canImport(Glibc)
    private static let resourceNumber = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    /// An unlimited hard limit (`RLIM_INFINITY`, all ones) is not a soft limit the kernel takes
    /// for files: its own ceiling is.
    private static var ceiling: rlim_t {
        let text = (try? String(contentsOfFile: "/proc/sys/fs/nr_open", encoding: .utf8)) ?? ""
        return rlim_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1_048_576
    }
    #else
    private static let resourceNumber = RLIMIT_NOFILE
    private static var ceiling: rlim_t { rlim_t(OPEN_MAX) }
    #endif
}
