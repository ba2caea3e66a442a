import Foundation
import MultipartKit
import NIOCore
import NIOHTTP1

/// A `multipart/form-data` body (RFC 7578) read as it arrives: each piece of the body goes through
/// multipart-kit's streaming `MultipartParser`, and what comes out are events — a part starts (its
/// name, file name and type), bytes of its body, the part ends — so a caller can write a file part
/// to disk without ever holding the whole body. Pure: bytes in, events out.
public final class MultipartStream {
    public enum Event: Equatable {
        case partStarted(name: String, filename: String?, contentType: String?)
        case body(ByteBuffer)
        case partEnded
    }

    public enum ParseError: Error, Equatable {
        /// Not multipart syntax, a part without a `Content-Disposition` name, or a body that ends
        /// inside a part (or before any).
        case malformed
    }

    private enum State { case betweenParts, headers, body }

    private let parser: MultipartParser
    private var guardian: HeaderNameGuard
    private var events: [Event] = []
    private var headers = HTTPHeaders()
    private var state = State.betweenParts
    private var partsEnded = 0
    private var failed = false

    /// A boundary that is not one (`isBoundary`) makes every body malformed.
    public init(boundary: String) {
        let usable = Self.isBoundary(boundary)
        // multipart-kit traps on an empty boundary; the stand-in is never used, the stream has failed.
        parser = MultipartParser(boundary: usable ? boundary : "-")
        guardian = HeaderNameGuard(boundary: boundary)
        failed = !usable
        // The parser lives and dies with this stream, so its callbacks hold it unowned.
        parser.onHeader = { [unowned self] name, value in
            self.headers.add(name: name, value: value)
            self.state = .headers
        }
        parser.onBody = { [unowned self] buffer in
            if self.state != .body { self.startPart() }
            if buffer.readableBytes > 0 { self.events.append(.body(buffer)) }
        }
        parser.onPartComplete = { [unowned self] in
            if self.state != .body { self.startPart() }
            self.events.append(.partEnded)
            self.state = .betweenParts
            self.partsEnded += 1
        }
    }

    /// The events the next piece of the body completes.
    public func feed(_ buffer: ByteBuffer) throws -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        guard !failed else { throw ParseError.malformed }
        // multipart-kit traps on a header name byte past ASCII: refuse those bytes before it reads them.
        guard buffer.withUnsafeReadableBytes({ guardian.admits($0) }) else {
            failed = true
            throw ParseError.malformed
        }
        do { try parser.execute(buffer) } catch { failed = true }
        if failed { throw ParseError.malformed }
        return events
    }

    /// Called at the end of the body: throws when it ended inside a part or held none.
    public func finish() throws {
        if failed || state != .betweenParts || partsEnded == 0 { throw ParseError.malformed }
    }

    /// The headers just read open a part; one without a `Content-Disposition` name is malformed.
    private func startPart() {
        let part = MultipartPart(headers: headers, body: ByteBuffer())
        if let name = part.name {
            let filename = headers.first(name: "Content-Disposition").flatMap(Self.filename(inDisposition:))
            events.append(.partStarted(name: name, filename: filename, contentType: headers.first(name: "Content-Type")))
        } else {
            failed = true
        }
        headers = HTTPHeaders()
        state = .body
    }

    static func filename(inDisposition value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "filename" else { continue }
            return pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: .init(charactersIn: "\""))
        }
        return nil
    }

    /// The boundary parameter of a `multipart/form-data; boundary=…` content type (1 to 70
    /// characters, RFC 2046 §5.1.1).
    public static func boundary(fromContentType contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = fields.first, type.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() where field.lowercased().hasPrefix("boundary=") {
            var value = String(field.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return isBoundary(value) ? value : nil
        }
        return nil
    }

    /// RFC 2046 §5.1.1: 1 to 70 of `bchars` (digits, letters, `'()+_,-./:=?` and space), not
    /// ending in a space. Above all no CR or LF, which the parser's line reading relies on.
    public static func isBoundary(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard (1...70).contains(bytes.count), bytes.last != UInt8(ascii: " ") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
            default: "'()+_,-./:=? ".utf8.contains(byte)
            }
        }
    }
}
