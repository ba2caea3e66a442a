import Foundation

/// Starts a child process. Foundation's `Process.run()` on Linux is not safe from several
/// threads at once (a launch racing others crashed the test process inside it, in `memcpy`), and
/// the suites start many children in parallel (peers, stand-ins, servers, tools): every launch in
/// the tests goes through this one lock.
public func launchChild(_ process: Process) throws {
    launchLock.lock()
    defer { launchLock.unlock() }
    try process.run()
}

private let launchLock = NSLock()
