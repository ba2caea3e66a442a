import Foundation

/// Splits a child process's output into lines; called from one readability handler at a time.
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
