import Foundation
import ParleyCore

/// What the load generator itself costs and what the kernel dropped, so a report can say what
/// limited a run: the harness's own CPU time (`ProcessStats`, as the server reads its own) and the machine's UDP receive-buffer
/// drops (`RcvbufErrors` in /proc/net/snmp — every socket on the machine, the relay's included;
/// with the clients in a network namespace of their own, their sockets count in that namespace's).
struct HostFigures: Sendable, Equatable {
    var harnessCPUSeconds: Double
    var udpReceiveBufferErrors: UInt64?

    /// `withChildren`: the harness's CPU counts its worker processes too (`--workers`).
    static func now(withChildren: Bool = false) -> HostFigures {
        // /proc/net/snmp is the reader's network namespace; /proc/1/net/snmp the machine's
        // (its first process's), where the relay is when the clients run in a namespace of their own.
        let snmp = (try? String(contentsOfFile: "/proc/1/net/snmp", encoding: .utf8))
            ?? (try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8)) ?? ""
        let own = withChildren ? ProcessTreeCPU(name: "harness", pid: getpid()).cpuSeconds() : nil
        return HostFigures(harnessCPUSeconds: own ?? ProcessStats.current()?.cpuSeconds ?? 0,
                           udpReceiveBufferErrors: udpReceiveBufferErrors(snmp: snmp))
    }

    /// `RcvbufErrors` from the `Udp:` header and value lines of /proc/net/snmp.
    static func udpReceiveBufferErrors(snmp: String) -> UInt64? {
        let udp = snmp.split(separator: "\n").filter { $0.hasPrefix("Udp: ") }
        guard udp.count >= 2 else { return nil }
        let names = udp[0].split(separator: " "), values = udp[1].split(separator: " ")
        guard let index = names.firstIndex(of: "RcvbufErrors"), index < values.count else { return nil }
        return UInt64(values[index])
    }
}
