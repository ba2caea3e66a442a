import Foundation
import ParleyCore

/// What the load generator itself costs and what the kernel dropped, so a report can say what
/// limited a run: the harness's own CPU time (`ProcessStats`, as the server reads its own) and the machine's UDP receive-buffer
/// drops (`RcvbufErrors` in /proc/net/snmp — every socket on the machine, the relay's included).
struct HostFigures: Sendable, Equatable {
    var harnessCPUSeconds: Double
    var udpReceiveBufferErrors: UInt64?

    static func now() -> HostFigures {
        HostFigures(harnessCPUSeconds: ProcessStats.current()?.cpuSeconds ?? 0, udpReceiveBufferErrors: udpReceiveBufferErrors(
            snmp: (try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8)) ?? ""))
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
