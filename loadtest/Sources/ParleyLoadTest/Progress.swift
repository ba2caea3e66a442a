import Foundation

/// The live progress line on standard error: rewritten in place on a terminal, one line per
/// second otherwise (logs, CI).
struct Progress: Sendable {
    let isTerminal = isatty(STDERR_FILENO) == 1

    func show(_ line: String) {
        let text = isTerminal ? "\r\u{1B}[2K" + line : line + "\n"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    func note(_ line: String) {
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[2K" : "") + line + "\n").utf8))
    }
}

extension Double {
    /// `12.3`-style text with `places` decimals.
    func fixed(_ places: Int) -> String { String(format: "%.\(places)f", self) }
}
