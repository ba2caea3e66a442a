import Foundation

/// The yardstick: `../shared/reference/run.sh` (a C relay on libsrtp2 with recvmmsg/sendmmsg)
/// run at the packet rate and size Parley's relay just carried, so the two CPU costs per packet
/// come from the same machine in the same run.
public struct ReferenceRun: Sendable {
    public struct Result: Sendable, Equatable, Codable {
        public var packetsPerSecond: Int
        public var packetSize: Int
        public var seconds: Int
        /// The reference relay's CPU time per relayed packet.
        public var cpuMicrosecondsPerPacket: Double
        /// What the reference relay received per second, as it measured it.
        public var measuredPacketsPerSecond: Double?
    }

    public enum Failure: Error, CustomStringConvertible {
        case missingScript(String)
        case failed(status: Int32, output: String)
        case unreadable(String)

        public var description: String {
            switch self {
            case .missingScript(let path): "no reference script at \(path) (the shared reference relay is not on this machine)"
            case .failed(let status, let output): "reference run exited \(status): \(output)"
            case .unreadable(let output): "no cpu_us_per_pkt in the reference's output: \(output)"
            }
        }
    }

    public var script: String

    public init(script: String) { self.script = script }

    /// Runs the reference with AEAD_AES_128_GCM (`--gcm`), as Parley's relay negotiates.
    public func run(packetsPerSecond: Int, packetSize: Int, seconds: Int) throws -> Result {
        guard FileManager.default.isExecutableFile(atPath: script) || FileManager.default.fileExists(atPath: script) else {
            throw Failure.missingScript(script)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, String(packetsPerSecond), String(packetSize), "--gcm", String(seconds)]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let output = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else { throw Failure.failed(status: process.terminationStatus, output: output) }
        guard let parsed = Self.parseRelayLine(output) else { throw Failure.unreadable(output) }
        return Result(packetsPerSecond: packetsPerSecond, packetSize: packetSize, seconds: seconds,
                      cpuMicrosecondsPerPacket: parsed.cpuMicrosecondsPerPacket, measuredPacketsPerSecond: parsed.packetsPerSecond)
    }

    /// Reads `relay got=… cpu_us_per_pkt=X pps=Y` from the script's output.
    static func parseRelayLine(_ output: String) -> (cpuMicrosecondsPerPacket: Double, packetsPerSecond: Double?)? {
        for line in output.split(separator: "\n") where line.hasPrefix("relay ") {
            var fields: [Substring: Substring] = [:]
            for pair in line.split(separator: " ") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            guard let cpu = fields["cpu_us_per_pkt"].flatMap({ Double($0) }) else { continue }
            return (cpu, fields["pps"].flatMap { Double($0) })
        }
        return nil
    }
}
