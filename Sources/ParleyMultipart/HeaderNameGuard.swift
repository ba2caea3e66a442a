/// multipart-kit 4.7.1's parser traps (an array index out of range) on a part header name byte
/// of 0x80 or more: its table of allowed name characters has 128 entries. Found by the `multipart`
/// fuzz target. This guard reads every byte before the parser does and says when such a byte
/// stands where the parser could be reading a header name, so that the body is refused as
/// malformed instead.
///
/// It errs on the side of looking: a part's headers begin after any `--boundary` outside headers
/// (with or without the CRLF before it) and end at the empty line; within them, a header name is
/// what comes before the colon of each line. A real body never holds its boundary, so file
/// contents are not looked at. Within headers the parser does not look for the boundary, so
/// neither does the guard: a header line that holds the boundary is still a header line (the
/// fuzz target's second find, `C--b0undary` followed by 0xff, is a header name to the parser).
///
/// Why this covers every header name the parser reads: the parser enters headers only where its
/// own match of the boundary ends, and every such match ends with `--boundary`, which the guard's
/// matcher sees too; every name begins after a line feed; and the parser leaves headers at the
/// empty line (CR LF CR LF) or fails.
struct HeaderNameGuard {
    private let delimiter: [UInt8]
    /// KMP failure function of `delimiter`: finds every occurrence, overlapping ones included.
    private let failure: [Int]
    private var matched = 0
    private var inHeaders = false
    private var inName = false
    /// The last bytes of the headers, to see the empty line (CR LF CR LF) that ends them.
    private var tail: UInt32 = 0

    init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
        var failure = [0]
        var k = 0
        for index in 1..<max(delimiter.count, 1) {
            while k > 0, delimiter[index] != delimiter[k] { k = failure[k - 1] }
            if delimiter[index] == delimiter[k] { k += 1 }
            failure.append(k)
        }
        self.failure = failure
    }

    /// False when `bytes` put a byte of 0x80 or more into a header name.
    mutating func admits(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes {
            if inHeaders {
                tail = tail << 8 | UInt32(byte)
                if tail == 0x0D0A_0D0A {
                    inHeaders = false
                } else if byte == 0x0A {
                    inName = true
                } else if byte == UInt8(ascii: ":") {
                    inName = false
                } else if inName, byte >= 0x80 {
                    return false
                }
            }
            while matched > 0, byte != delimiter[matched] { matched = failure[matched - 1] }
            if byte == delimiter[matched] { matched += 1 }
            if matched == delimiter.count {
                matched = failure[matched - 1]
                guard !inHeaders else { continue }
                inHeaders = true
                inName = false   // the rest of the boundary line is no header name
                tail = 0
            }
        }
        return true
    }
}
