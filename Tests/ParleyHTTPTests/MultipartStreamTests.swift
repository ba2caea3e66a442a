import NIOCore
import ParleyMultipart
import Testing

/// `multipart/form-data` read as it arrives (multipart-kit's parser, RFC 7578): the same parts
/// whether the body comes whole or a byte at a time.
@Suite struct MultipartStreamTests {
    struct Part: Equatable { var name: String; var filename: String?; var contentType: String?; var body: [UInt8] }

    /// Feeds `body` in pieces of `step` bytes and gathers the parts the events describe.
    static func parts(_ body: [UInt8], boundary: String, step: Int) throws -> [Part] {
        let stream = MultipartStream(boundary: boundary)
        var parts: [Part] = []
        var offset = 0
        while offset < body.count {
            let piece = ByteBuffer(bytes: body[offset..<min(offset + step, body.count)])
            offset += step
            for event in try stream.feed(piece) {
                switch event {
                case .partStarted(let name, let filename, let contentType):
                    parts.append(Part(name: name, filename: filename, contentType: contentType, body: []))
                case .body(let bytes): parts[parts.count - 1].body += bytes.readableBytesView
                case .partEnded: break
                }
            }
        }
        try stream.finish()
        return parts
    }

    @Test(arguments: [1, 2, 7, 4096])
    func splitsPartsWithNamesFilenamesAndTypes(step: Int) throws {
        let body = Array("preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\none\r\n--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"p.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--Xy\u{1}\r\n--XyZ--\r\nepilogue".utf8)
        let parts = try Self.parts(body, boundary: "XyZ", step: step)
        #expect(parts == [
            Part(name: "a", filename: nil, contentType: nil, body: Array("one".utf8)),
            Part(name: "f", filename: "p.bin", contentType: "application/octet-stream", body: Array("\r\n--Xy\u{1}".utf8)),
        ], "a near-boundary inside the content stays content")
    }

    @Test func anEmptyPartIsAPart() throws {
        let body = Array("--b\r\nContent-Disposition: form-data; name=\"e\"\r\n\r\n\r\n--b--\r\n".utf8)
        #expect(try Self.parts(body, boundary: "b", step: 3) == [Part(name: "e", filename: nil, contentType: nil, body: [])])
    }

    @Test func boundaryComesFromTheContentType() {
        #expect(MultipartStream.boundary(fromContentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(MultipartStream.boundary(fromContentType: "Multipart/Form-Data; charset=utf-8; boundary=\"a b\"") == "a b")
        #expect(MultipartStream.boundary(fromContentType: "multipart/form-data") == nil)
        #expect(MultipartStream.boundary(fromContentType: "application/json; boundary=abc") == nil)
        #expect(MultipartStream.boundary(fromContentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
    }

    @Test(arguments: ["", "--b", "--b\r\nno headers end", "--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nno closing",
                      "--b\r\nX: y\r\n\r\nv\r\n--b--", "--b\r\n\r\nno headers at all\r\n--b--", "--b\r\nBad Header: y\r\n\r\n\r\n--b--"])
    func malformedBodiesThrow(text: String) {
        #expect(throws: MultipartStream.ParseError.self) { try Self.parts(Array(text.utf8), boundary: "b", step: 5) }
    }

    /// Found by the `multipart` fuzz target: a byte past ASCII in a part's header name made
    /// multipart-kit 4.7.1 trap (index out of range in its table of name characters), which would
    /// take the server down. Now the body is malformed, however it is cut into pieces.
    @Test(arguments: [1, 3, 64, 4096])
    func aHeaderNameBytePastASCIIIsMalformedNotATrap(step: Int) {
        var body = Array("--b0undary\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nAnn\r\n--b0undary\r\nContent-".utf8)
        body += [0xB8] + Array("isposition: form-data; name=\"file\"\r\n\r\n\u{89}PNG\r\n--b0undary--\r\n".utf8)
        #expect(throws: MultipartStream.ParseError.malformed) { try Self.parts(body, boundary: "b0undary", step: step) }
        let first = Array("--b\r\n".utf8) + [0xC3, 0xA9] + Array(": x\r\n\r\nv\r\n--b--".utf8)
        #expect(throws: MultipartStream.ParseError.malformed) { try Self.parts(first, boundary: "b", step: step) }
    }

    /// The fuzz target's second find: a header line that holds the boundary (`C--b0undary`) is
    /// still a header name to the parser, and the 0xff bytes after it made multipart-kit trap; the
    /// guard had taken the boundary for the start of new headers. Cut as the fuzzer cut it (8-byte
    /// pieces) and every other way.
    @Test(arguments: [1, 2, 8, 4096])
    func aBoundaryInsideAHeaderNameDoesNotHideWhatFollows(step: Int) {
        var body = Array("--b0undary\r\nC--b0undary".utf8) + [UInt8](repeating: 0xFF, count: 9)
        body += Array("t-D[sposition: form-data; name=\"name\"\r\n\r\nAnn\r\n--b0undary--\r\n".utf8)
        #expect(throws: MultipartStream.ParseError.malformed) { try Self.parts(body, boundary: "b0undary", step: step) }
        let value = Array("--b\r\nX: --b\r\nY".utf8) + [0xE9] + Array(": 1\r\n\r\nv\r\n--b--".utf8)
        #expect(throws: MultipartStream.ParseError.malformed) { try Self.parts(value, boundary: "b", step: step) }
    }

    /// A boundary outside RFC 2046's characters (a CR or LF above all, or none at all) makes the
    /// body malformed rather than reaching the parser.
    @Test(arguments: ["", "a\rb", "a\nb", "trailing ", "caf\u{E9}", String(repeating: "x", count: 71)])
    func aBoundaryThatIsNoneMakesTheBodyMalformed(boundary: String) {
        #expect(!MultipartStream.isBoundary(boundary))
        #expect(MultipartStream.boundary(fromContentType: "multipart/form-data; boundary=\"\(boundary)\"") == nil)
        #expect(throws: MultipartStream.ParseError.malformed) { try Self.parts(Array("--x\r\n".utf8), boundary: boundary, step: 4) }
    }

    /// Bytes past ASCII are fine where they may stand: in a header's value (a UTF-8 file name, as
    /// browsers send it) and in the content.
    @Test func bytesPastASCIIInValuesAndContentAreFine() throws {
        let body = Array("--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r\u{E9}sum\u{E9}.png\"\r\n\r\n".utf8)
            + [0x89, 0xFF, 0x80, 0x3A, 0xC3] + Array("\r\n--b--\r\n".utf8)
        let parts = try Self.parts(body, boundary: "b", step: 2)
        #expect(parts == [Part(name: "file", filename: "r\u{E9}sum\u{E9}.png", contentType: nil, body: [0x89, 0xFF, 0x80, 0x3A, 0xC3])])
    }
}

