import Foundation
import Hummingbird
import NIOCore
import NIOFileSystem
import ParleyCore
import ParleyProtocol
import ParleyFiles
import ParleyMultipart

/// Uploads go to disk as they arrive, never whole into memory: each piece of the request body is
/// hashed, counted and written to a staged file. Past the limit the request is refused at once
/// (413) and the staged file does not exist: NIOFileSystem creates a new file transactionally, so
/// one that was not closed in success never gets its name.
enum UploadReceiver {
    /// A body's bytes, counted against a limit and hashed on their way to disk.
    struct Tally {
        let limit: Int
        let overLimit: ParleyError
        var size = 0
        var hasher = ContentHasher()

        mutating func take(_ chunk: ByteBuffer) throws {
            size += chunk.readableBytes
            if size > limit { throw overLimit }
            chunk.withUnsafeReadableBytes { hasher.update($0) }
        }
    }

    /// A raw request body (the file itself) into a new file at `path`.
    static func receive<Body: AsyncSequence>(
        _ body: Body, to path: String, limit: Int, overLimit: ParleyError
    ) async throws -> StagedFile where Body.Element == ByteBuffer {
        var tally = Tally(limit: limit, overLimit: overLimit)
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: .init(path), options: .newFile(replaceExisting: false)) { handle in
                try await handle.withBufferedWriter { writer in
                    for try await chunk in body {
                        try tally.take(chunk)
                        _ = try await writer.write(contentsOf: chunk)
                    }
                }
            }
        } catch {
            unlink(path)   // already so when the file was never made visible; and when it was, now
            throw error
        }
        return StagedFile(path: path, size: tally.size, hash: tally.hasher.finalize())
    }

    /// What a `multipart/form-data` upload held: its text fields, and the file part if it had one.
    struct Form {
        var fields: [String: String] = [:]
        var file: StagedFile?

        func field(_ name: String) throws -> String {
            guard let value = fields[name] else { throw ParleyError(.badRequest, code: "missing_field", "\(name) is required") }
            // As a JSON body's text: no NUL (`NulEscape`).
            if value.utf8.contains(0) { throw ParleyError(.badRequest, code: "invalid_field", "\(name): \(NulEscape.refused)") }
            return value
        }
    }

    /// Text fields may take this much together; they are held in memory.
    static let fieldsLimit = RequestBody.jsonLimit

    /// A `multipart/form-data` body (RFC 7578) read with multipart-kit's streaming parser: the part
    /// named `fileField` goes to a new file at `path` within `limit` bytes, the other parts are
    /// text fields. An empty file part counts as none.
    static func receiveForm<Body: AsyncSequence>(
        _ body: Body, boundary: String, fileField: String, to path: String, limit: Int, overLimit: ParleyError
    ) async throws -> Form where Body.Element == ByteBuffer {
        let stream = MultipartStream(boundary: boundary)
        var form = Form()
        var tally = Tally(limit: limit, overLimit: overLimit)
        var fieldBytes = 0, totalBytes = 0
        var sawFile = false
        // Part headers, delimiters and a preamble count too, so the body as a whole is bounded.
        let totalLimit = limit + fieldsLimit + 16 * 1024
        do {
            try await FileSystem.shared.withFileHandle(forWritingAt: .init(path), options: .newFile(replaceExisting: false)) { handle in
                try await handle.withBufferedWriter { writer in
                    var current: (name: String, text: [UInt8])?
                    var inFile = false
                    for try await chunk in body {
                        totalBytes += chunk.readableBytes
                        if totalBytes > totalLimit { throw RequestBody.tooLarge(totalLimit) }
                        let events: [MultipartStream.Event]
                        do { events = try stream.feed(chunk) } catch { throw Self.malformed }
                        for event in events {
                            switch event {
                            case .partStarted(let name, _, _) where name == fileField && !sawFile:
                                inFile = true
                                sawFile = true
                            case .partStarted(let name, _, _):
                                current = (name, [])
                            case .body(let bytes) where inFile:
                                try tally.take(bytes)
                                _ = try await writer.write(contentsOf: bytes)
                            case .body(let bytes):
                                fieldBytes += bytes.readableBytes
                                if fieldBytes > fieldsLimit { throw RequestBody.tooLarge(fieldsLimit) }
                                current?.text += bytes.readableBytesView
                            case .partEnded:
                                if let field = current, form.fields[field.name] == nil {
                                    form.fields[field.name] = String(decoding: field.text, as: UTF8.self)
                                }
                                current = nil
                                inFile = false
                            }
                        }
                    }
                    do { try stream.finish() } catch { throw Self.malformed }
                }
            }
        } catch {
            unlink(path)
            throw error
        }
        if sawFile, tally.size > 0 {
            form.file = StagedFile(path: path, size: tally.size, hash: tally.hasher.finalize())
        } else {
            unlink(path)
        }
        return form
    }

    static let malformed = ParleyError.badRequest("The multipart body could not be read", code: "invalid_multipart")

    /// The boundary of a multipart/form-data content type, or 400 `invalid_multipart`.
    static func boundary(_ contentType: String) throws -> String {
        guard let boundary = MultipartStream.boundary(fromContentType: contentType) else {
            throw ParleyError.badRequest("multipart/form-data needs a boundary", code: "invalid_multipart")
        }
        return boundary
    }
}
