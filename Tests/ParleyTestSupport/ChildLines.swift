import Foundation

/// A Python script from Tests/Peers that speaks in JSON lines on stdout (a stand-in service):
/// started with the test venv's Python, read line by line, killed at the end.
public final class ChildLines: @unchecked Sendable {  // the child is only signalled and waited on
    let process: ChildProcess
    let name: String
    let lines: AsyncStream<String>
    let log = OutputLog()

    public init(python: String, script: String, arguments: [String] = [], name: String) throws {
        self.name = name
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", AiortcPeer.script(named: script)] + arguments
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let buffer = LineBuffer()
        drain(stdout.fileHandleForReading,
              chunk: { data in for line in buffer.append(data) { continuation.yield(line) } },
              end: { continuation.finish() })
        drain(stderr.fileHandleForReading, chunk: { [log] in log.append($0) })
        lines = stream
        try process.run()
    }

    /// The next line as a JSON object, within `timeout`.
    public func next(timeout: Duration) async throws -> [String: Any] {
        let line = try await nextLine(of: lines, timeout: timeout, who: name, log: log)
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw ChildProcessError.badLine(name, line)
        }
        return object
    }

    public var stderr: String { log.text }

    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
