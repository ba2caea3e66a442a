import Foundation

/// A `multipart/form-data` body (RFC 7578) split into its parts. Pure: bytes in, parts out.
public struct MultipartFormData: Sendable {
    public struct Part: Sendable, Equatable {
        public var name: String
        public var filename: String?
        public var contentType: String?
        public var body: [UInt8]
    }

    public enum ParseError: Error, Equatable { case noBoundary, malformed }

    public let parts: [Part]

    public func part(named name: String) -> Part? { parts.first { $0.name == name } }

    public func text(_ name: String) -> String? {
        part(named: name).map { String(decoding: $0.body, as: UTF8.self) }
    }

    /// The boundary parameter of a `multipart/form-data; boundary=…` content type.
    public static func boundary(fromContentType contentType: String) -> String? {
        let fields = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = fields.first, type.lowercased() == "multipart/form-data" else { return nil }
        for field in fields.dropFirst() where field.lowercased().hasPrefix("boundary=") {
            var value = String(field.dropFirst("boundary=".count))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.utf8.count > 70 ? nil : value
        }
        return nil
    }

    public init(body: [UInt8], boundary: String) throws {
        let delimiter = Array("--\(boundary)".utf8)
        guard var position = Self.find(delimiter, in: body, from: 0) else { throw ParseError.noBoundary }
        var parts: [Part] = []
        while true {
            position += delimiter.count
            // "--" after a delimiter closes the body.
            if body.count >= position + 2, body[position] == 0x2D, body[position + 1] == 0x2D { break }
            guard let lineEnd = Self.find([0x0D, 0x0A], in: body, from: position) else { throw ParseError.malformed }
            let headersStart = lineEnd + 2
            guard let headersEnd = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: body, from: headersStart) else {
                throw ParseError.malformed
            }
            let headerText = String(decoding: body[headersStart..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = Self.find([0x0D, 0x0A] + delimiter, in: body, from: contentStart) else {
                throw ParseError.malformed
            }
            parts.append(try Self.part(headers: headerText, body: Array(body[contentStart..<next])))
            position = next + 2
        }
        self.parts = parts
    }

    static func part(headers: String, body: [UInt8]) throws -> Part {
        var name: String?, filename: String?, contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { throw ParseError.malformed }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "content-type" { contentType = value }
            if field == "content-disposition" {
                for parameter in value.split(separator: ";").dropFirst() {
                    let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard pair.count == 2 else { continue }
                    var text = pair[1]
                    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
                    if pair[0].lowercased() == "name" { name = text }
                    if pair[0].lowercased() == "filename" { filename = text }
                }
            }
        }
        guard let name else { throw ParseError.malformed }
        return Part(name: name, filename: filename, contentType: contentType, body: body)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == first {
                var matched = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
