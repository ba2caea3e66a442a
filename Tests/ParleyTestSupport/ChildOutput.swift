import Foundation

/// Splits a child process's output into lines; fed by one reader thread.
final class LineBuffer: @unchecked Sendable {
    private var pending = Data()

    func append(_ data: Data) -> [String] {
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending = Data(pending[pending.index(after: newline)...])
        }
        return lines
    }
}

/// What a child process wrote (its stderr), kept for failure messages.
final class OutputLog: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()

    func append(_ more: Data) {
        lock.lock()
        data.append(more)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Why a child process (a peer, a stand-in) gave no usable answer; its stderr comes with it.
public enum ChildProcessError: Error, CustomStringConvertible {
    case exited(String, String)
    case timedOut(String, String)
    case badLine(String, String)

    public var description: String {
        switch self {
        case .exited(let who, let log): "\(who) exited early; stderr:\n\(log)"
        case .timedOut(let who, let log): "\(who) did not answer in time; stderr:\n\(log)"
        case .badLine(let who, let line): "\(who) printed something that is not the JSON line expected: \(line)"
        }
    }
}

/// Reads a child's pipe on a thread of its own with blocking reads until end of file, handing
/// each chunk on, then `end` once. Foundation's `readabilityHandler` is a dispatch source
/// torn down from inside its own handler when the pipe closes; a plain read loop keeps
/// dispatch out of reading a child's output.
func drain(_ handle: FileHandle, chunk: @escaping @Sendable (Data) -> Void, end: @escaping @Sendable () -> Void = {}) {
    let descriptor = handle.fileDescriptor
    let thread = Thread {
        withExtendedLifetime(handle) {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 { chunk(Data(buffer[0..<count])); continue }
                if count < 0, errno == EINTR { continue }
                if count < 0 {
                    // Not the child's end of file: say so, or it reads as a child that exited early.
                    let reason = String(cString: strerror(errno))
                    FileHandle.standardError.write(Data("child output: reading descriptor \(descriptor) failed: \(reason)\n".utf8))
                }
                break
            }
        }
        end()
    }
    thread.start()
}

/// The next line a child printed, within `timeout`; `who` and its stderr name it in the error
/// when it exits or stays silent.
func nextLine(of lines: AsyncStream<String>, timeout: Duration, who: String, log: OutputLog) async throws -> String {
    let line: String? = try await withThrowingTaskGroup(of: String?.self) { group in
        group.addTask {
            var iterator = lines.makeAsyncIterator()
            guard let line = await iterator.next() else { throw ChildProcessError.exited(who, log.text) }
            return line
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        let first = try await group.next() ?? nil
        group.cancelAll()
        return first
    }
    guard let line else { throw ChildProcessError.timedOut(who, log.text) }
    return line
}
