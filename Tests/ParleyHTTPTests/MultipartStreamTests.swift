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
}
