import Foundation
import Testing

/// A real aiortc client (Tests/Peers/aiortc_echo_peer.py) driven over stdio: it prints its offer,
/// takes the relay's answer, connects, and reports the frames it decoded.
///
/// The interpreter comes from `PARLEY_TEST_PYTHON`, a venv with `aiortc==1.16.*`. Other peer
/// scripts speaking the same protocol (Tests/Peers/chromium_turn_peer.py) run through `script:`.
public final class AiortcPeer: @unchecked Sendable {  // the child is only signalled after launch
    public struct Message: Decodable, Sendable {
        public var type: String
        public var sdp: String?
        public var audioFrames: Int?
        public var videoFrames: Int?
        /// Frames this peer's own tracks handed to their encoders while its window was open.
        public var audioFramesSent: Int?
        public var videoFramesSent: Int?
        public var srtpProfile: String?
        public var connectSeconds: Double?
        public var firstAudioAfter: Double?
        public var firstVideoAfter: Double?
        public var firstAudioEpoch: Double?
        public var firstVideoEpoch: Double?
        public var videoSize: [Int]?
        public var remoteIceLite: Bool?
        public var remoteSetup: String?
        public var error: String?
        /// A progress line's seconds since the counting window opened (`--progress`).
        public var t: Double?
        // chromium_turn_peer.py: relay candidates in the offer, and the pair media went through.
        public var relayCandidates: Int?
        public var candidateType: String?
        public var relayProtocol: String?
        public var connectionState: String?
        public var audioPackets: Int?
        /// With `--policy all`: the selected pair's local and remote candidate protocols, and
        /// the inbound audio's total energy (RFC-less, getStats' totalAudioEnergy).
        public var `protocol`: String?
        public var remoteProtocol: String?
        public var audioEnergy: Double?
        // chromium_restart_peer.py: the restart offer, and media around the restart.
        public var restart: Bool?
        public var videoFramesBefore: Int?
        public var audioPacketsBefore: Int?
        public var videoGapSeconds: Double?
        public var audioGapSeconds: Double?
        public var baselineVideoGapSeconds: Double?
        public var connectionStates: [String]?
        public var ufragBefore: String?
        public var ufragAfter: String?
        public var pairChanges: Int?
        public var restartAnsweredAfter: Double?
        /// RTP packets aiortc's receiver took, keyed "ssrc/payloadType" (with `--rtx`).
        public var rtpReceived: [String: Int]?
        /// Retransmissions this peer sent for NACKs, and how many of them as RTX.
        public var retransmissionsSent: Int?
        public var rtxSent: Int?
        /// The answer's video RTX payload type and `a=ssrc-group:FID` SSRCs.
        public var answerRtxPayloadType: Int?
        public var answerFID: [UInt32]?
        /// Chromium's video stats (chromium_restart_peer.py): inbound `retransmittedPacketsReceived`,
        /// `nackCount` and `rtxSsrc`, outbound `retransmittedPacketsSent`.
        public var retransmittedPacketsReceived: Int?
        public var retransmittedPacketsSent: Int?
        public var videoNacksSent: Int?
        public var rtxSsrc: UInt32?
    }

    private let process: ChildProcess
    private let stdin: Pipe
    private let lines: AsyncStream<String>
    private let stderrLog: OutputLog

    /// The interpreter; records a failure (not a skip) when unset.
    public static func python(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let value = ProcessInfo.processInfo.environment["PARLEY_TEST_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
        return try #require(
            value,
            "PARLEY_TEST_PYTHON is not set, so the relay interop tests cannot start aiortc. Run the project's test command, which makes a venv with aiortc==1.16.* and sets it (or point it at one: python -m venv v && v/bin/pip install 'aiortc==1.16.*').",
            sourceLocation: sourceLocation)
    }

    /// The peer script, found next to this test folder (symlinks resolved).
    public static var scriptPath: String { script(named: "aiortc_echo_peer.py") }

    /// A script in Tests/Peers.
    public static func script(named name: String) -> String {
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/\(name)").path   // Tests/Peers
    }

    public init(python: String, script: String = AiortcPeer.scriptPath, arguments: [String]) throws {
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", script] + arguments
        stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let buffer = LineBuffer()
        drain(stdout.fileHandleForReading,
              chunk: { data in for line in buffer.append(data) { continuation.yield(line) } },
              end: { continuation.finish() })
        let log = OutputLog()
        drain(stderr.fileHandleForReading, chunk: { log.append($0) })
        stderrLog = log
        lines = stream
        try process.run()
    }

    /// The next JSON message on stdout, within `timeout`.
    public func next(timeout: Duration) async throws -> Message {
        let line = try await nextLine(timeout: timeout)
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(line.utf8)) else {
            throw ChildProcessError.badLine("the aiortc peer", line)
        }
        return message
    }

    /// The next line on stdout, within `timeout`, for scripts whose lines are their own.
    public func nextLine(timeout: Duration) async throws -> String {
        do {
            return try await ParleyTestSupport.nextLine(of: lines, timeout: timeout, who: "the aiortc peer", log: stderrLog)
        } catch ChildProcessError.exited(let who, let log) {
            // How it ended tells a crash or a kill from output that stopped being read.
            try? await Task.sleep(for: .milliseconds(200))
            let state = process.isRunning ? "still running"
                : process.endedBySignal ? "ended by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
            throw ChildProcessError.exited("\(who) (\(state))", log)
        }
    }

    /// Writes one JSON line to the peer's stdin.
    public func send(answer sdp: String) throws {
        let data = try JSONEncoder().encode(["sdp": sdp])
        stdin.fileHandleForWriting.write(data + Data("\n".utf8))
    }

    /// Writes one line of the script's own to its stdin.
    public func send(line: String) {
        stdin.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Tells a peer started with `--hold` to close its peer connection (DTLS close_notify).
    public func close() {
        stdin.fileHandleForWriting.write(Data("{\"close\":true}\n".utf8))
    }

    public var stderr: String { stderrLog.text }

    /// SIGKILL: the peer is ended at once, mid-call if need be.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
