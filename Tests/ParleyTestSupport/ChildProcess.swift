import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with the part of Foundation's `Process` surface the
/// tests use. Foundation's `Process.run()` on Linux (swift-corelibs-foundation up to Swift 6.3)
/// copies a fixed 256 bytes out of every `/proc/self/fd` directory entry to find the highest open
/// descriptor; an entry at the end of glibc's read buffer makes that copy run into an unmapped page
/// and the whole test process dies with SIGSEGV in `memcpy` (swift-corelibs-foundation#5472). The
/// suites start hundreds of children, so they start them here instead: the child closes every
/// descriptor above 2 with `closefrom` semantics, gets an empty signal mask and default signal
/// dispositions (Foundation passes on the spawning thread's mask, with SIGTERM often blocked), and
/// runs in a process group of its own, as Foundation's children do.
public final class ChildProcess: @unchecked Sendable {  // configured before run(); the exit state behind a lock
    public var executableURL: URL?
    public var arguments: [String] = []
    /// nil: the test process's own environment.
    public var environment: [String: String]?
    /// A `Pipe`, a `FileHandle` (`FileHandle.nullDevice` opens /dev/null), or nil to inherit.
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    private let state = NSCondition()
    private var pid: pid_t = 0
    private var exit: (status: Int32, signalled: Bool)?

    public init() {}

    public var processIdentifier: Int32 { state.withLock { pid } }

    public var isRunning: Bool { state.withLock { pid != 0 && exit == nil } }

    /// The exit code, or the number of the signal that ended the child.
    public var terminationStatus: Int32 {
        state.withLock {
            precondition(exit != nil, "terminationStatus read before the child ended")
            return exit!.status
        }
    }

    /// True when a signal ended the child.
    public var endedBySignal: Bool { state.withLock { exit?.signalled ?? false } }

    public func run() throws {
        guard let executable = executableURL?.path else { throw ChildProcessLaunchError.noExecutable }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds: [FileHandle] = []
        for (stream, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            try Self.connect(stream, to: target, input: target == 0, actions: &actions, parentEnds: &parentEnds)
        }
        guard let addCloseFrom else { throw ChildProcessLaunchError.noCloseFrom }
        try check(addCloseFrom(&actions, 3))

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        try check(posix_spawnattr_setsigmask(&attributes, &none))
        try check(posix_spawnattr_setsigdefault(&attributes, &all))
        try check(posix_spawnattr_setpgroup(&attributes, 0))
        try check(posix_spawnattr_setflags(&attributes,
            Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment = (self.environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            environment.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environment)
        guard result == 0 else { throw ChildProcessLaunchError.spawn(executable, errno: result) }
        for end in parentEnds { try? end.close() }
        let spawned = child
        state.withLock { pid = spawned }
        let reaper = Thread { [self] in reap(spawned) }
        reaper.name = "child-\(spawned)"
        reaper.start()
    }

    public func waitUntilExit() {
        state.lock()
        while exit == nil { state.wait() }
        state.unlock()
    }

    /// SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// SIGINT.
    public func interrupt() { signal(SIGINT) }

    /// Sends `number` to the child while it runs (never to a reaped pid that may be reused).
    public func signal(_ number: Int32) {
        state.withLock {
            if pid != 0, exit == nil { kill(pid, number) }
        }
    }

    private func reap(_ child: pid_t) {
        var status: Int32 = 0
        while waitpid(child, &status, 0) == -1 && errno == EINTR {}
        let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
        let code = signalled ? status & 0x7f : (status >> 8) & 0xff
        state.withLock {
            exit = (code, signalled)
            state.broadcast()
        }
    }

    private static func connect(_ stream: Any?, to target: Int32, input: Bool,
                                actions: inout posix_spawn_file_actions_t, parentEnds: inout [FileHandle]) throws {
        switch stream {
        case nil:
            return
        case let pipe as Pipe:
            let childEnd = input ? pipe.fileHandleForReading : pipe.fileHandleForWriting
            try check(posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target))
            parentEnds.append(childEnd)
        case let handle as FileHandle where handle === FileHandle.nullDevice:
            try check(posix_spawn_file_actions_addopen(&actions, target, "/dev/null", input ? O_RDONLY : O_WRONLY, 0))
        case let handle as FileHandle:
            try check(posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target))
        default:
            throw ChildProcessLaunchError.unsupportedStream
        }
    }
}

public enum ChildProcessLaunchError: Error, CustomStringConvertible {
    case noExecutable
    case unsupportedStream
    case spawn(String, errno: Int32)
    case fileAction(errno: Int32)
    case noCloseFrom

    public var description: String {
        switch self {
        case .noExecutable: "no executable set"
        case .unsupportedStream: "a standard stream must be a Pipe, a FileHandle or nil"
        case .spawn(let path, let code): "posix_spawn \(path): \(String(cString: strerror(code)))"
        case .fileAction(let code): "posix_spawn file action: \(String(cString: strerror(code)))"
        case .noCloseFrom: "this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has)"
        }
    }
}

/// glibc (2.34 and later) declares it only under _GNU_SOURCE, which Swift's Glibc module does not
/// set; looked up once by name.
private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
nonisolated(unsafe) private let addCloseFrom: AddCloseFrom? =
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

private func check(_ result: Int32) throws {
    if result != 0 { throw ChildProcessLaunchError.fileAction(errno: result) }
}
