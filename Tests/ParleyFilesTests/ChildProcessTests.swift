import Foundation
import Testing
import ParleyTestSupport

/// The tests' own child launcher (posix_spawn), which every suite uses to start peers, stand-ins
/// and tools.
@Suite("Test support: child processes")
struct ChildProcessTests {
    @Test("output through a pipe, the exit code, arguments and environment reach the child")
    func pipeAndExitCode() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "printf '%s %s' \"$1\" \"$GREETING\"; exit 7", "sh", "first"]
        process.environment = ["GREETING": "hello"]
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "first hello")
        #expect(process.terminationStatus == 7)
        #expect(!process.endedBySignal)
        #expect(!process.isRunning)
    }

    @Test("SIGTERM reaches the child: its mask is empty and its dispositions are the defaults")
    func terminate() throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["30"]
        try process.run()
        #expect(process.isRunning)
        process.terminate()
        process.waitUntilExit()
        #expect(process.endedBySignal)
        #expect(process.terminationStatus == SIGTERM)
    }

    @Test("the child inherits no descriptor of the test process but its three streams")
    func noInheritedDescriptors() throws {
        let leaked = open("/dev/null", O_RDONLY)  // deliberately without O_CLOEXEC
        defer { close(leaked) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/ls")
        process.arguments = ["/proc/self/fd"]
        let output = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let names = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").compactMap { Int($0) }
        process.waitUntilExit()
        // 0, 1 and 2, and ls's own handle on the directory: the lowest free number, 3.
        #expect(leaked > 3)
        #expect(names.max() == 3)
    }

    @Test("many launches at once from eight threads, with descriptors opening and closing beside them")
    func manyAtOnce() throws {
        let done = DispatchGroup()
        let failures = FailureCount()
        let stop = FailureCount()
        let churn = Thread {
            while stop.value == 0 {
                let fds = (0..<64).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
                fds.forEach { close($0) }
            }
        }
        churn.start()
        for thread in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
                for n in 0..<25 {
                    let process = ChildProcess()
                    process.executableURL = URL(fileURLWithPath: "/bin/sh")
                    process.arguments = ["-c", "exit \((thread + n) % 5)"]
                    process.standardInput = FileHandle.nullDevice
                    process.standardOutput = FileHandle.nullDevice
                    do {
                        try process.run()
                        process.waitUntilExit()
                        if process.terminationStatus != Int32((thread + n) % 5) { failures.add() }
                    } catch {
                        failures.add()
                    }
                }
            }.start()
        }
        let finished = done.wait(timeout: .now() + 60)
        stop.add()
        #expect(finished == .success)
        #expect(failures.value == 0)
    }

    @Test("a missing executable is an error, not a child")
    func missingExecutable() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: ChildProcessLaunchError.self) { try process.run() }
        #expect(!process.isRunning)
    }
}

private final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
