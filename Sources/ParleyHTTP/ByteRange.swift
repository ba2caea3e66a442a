/// A `Range: bytes=…` request header against a file of `size` bytes (RFC 9110 §14.1.2, §14.2):
/// one range, `first-last`, `first-` or `-suffix`. Media players (AVPlayer among them) fetch
/// video this way. Several ranges, another unit or a malformed header get the whole file, as
/// RFC 9110 lets a server ignore a Range it does not support.
public enum ByteRange: Equatable, Sendable {
    /// Answer 200 with everything.
    case whole
    /// Answer 206 with these bytes (offsets into the file, inclusive).
    case part(ClosedRange<Int>)
    /// Answer 416: the range starts past the end (`Content-Range: bytes */size`).
    case unsatisfiable

    public static func parse(_ header: String?, size: Int) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingPrefix(" ")
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).filter { $0 != " " }
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            // The last `suffix` bytes.
            guard let suffix = Int(lastText), suffix >= 0 else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .part(max(size - suffix, 0)...(size - 1))
        }
        guard let first = Int(firstText), first >= 0 else { return .whole }
        var last = size - 1
        if !lastText.isEmpty {
            guard let asked = Int(lastText), asked >= first else { return .whole }
            last = min(asked, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .part(first...last)
    }
}
