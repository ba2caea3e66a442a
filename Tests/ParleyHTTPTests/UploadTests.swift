import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Uploads stream to disk and are refused as soon as they pass a limit, leaving nothing behind;
/// each user's attachments have a quota; a byte range is read from the file on its own.
@Suite struct UploadTests {
    /// A real 1×1 PNG followed by `count` bytes that no other test file shares (`seed`): an image
    /// of any size, which the probe accepts by its header.
    static func png(padding count: Int, seed: UInt64 = 1) -> [UInt8] {
        var bytes = TestImages.png
        bytes.reserveCapacity(bytes.count + count + 8)
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        while bytes.count < TestImages.png.count + count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17   // xorshift64
            withUnsafeBytes(of: state.littleEndian) { bytes += $0 }
        }
        return Array(bytes.prefix(TestImages.png.count + count))
    }

    /// Every regular file under the attachment store (the staging folder included).
    static func storedFiles(_ parley: TestParley) -> [String] {
        let root = parley.directory + "/files"
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        return walker.compactMap { $0 as? String }.filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    static func multipart(_ file: [UInt8], boundary: String = "UpL0ad") -> [UInt8] {
        Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            + file + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    @Test func anUploadPastTheLimitIsRefusedAndNothingIsLeftOnDisk() async throws {
        let parley = try await TestParley.start { config in
            config.maxImageBytes = 32 * 1024
            config.maxVideoBytes = 64 * 1024
            config.maxAudioBytes = 16 * 1024
        }
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let multipartType: HTTPFields = [.contentType: "multipart/form-data; boundary=UpL0ad"]
            // Past the largest kind's limit: refused while it arrives, raw or as a form's file part.
            let huge = Self.png(padding: 256 * 1024)
            for (body, headers) in [(huge, HTTPFields()), (Self.multipart(huge), multipartType)] {
                let reply = try await client.call(.post, "/v1/attachments", raw: body, token: ann.accessToken, headers: headers)
                #expect(reply.status == .contentTooLarge, "\(reply.text)")
                #expect(reply.errorCode == "payload_too_large")
            }
            // Under the largest limit but past the image limit: refused once the bytes show an image.
            let big = Self.png(padding: 40 * 1024, seed: 2)
            let refused = try await client.call(.post, "/v1/attachments", raw: big, token: ann.accessToken)
            #expect(refused.status == .contentTooLarge)
            #expect(refused.errorCode == "payload_too_large")
            #expect(Self.storedFiles(parley) == [], "no partial or refused file is left, staged or stored")

            // Within the limit, both ways in, and the bytes come back as sent.
            let small = Self.png(padding: 20 * 1024, seed: 3)
            for (body, headers) in [(small, HTTPFields()), (Self.multipart(small), multipartType)] {
                let reply = try await client.call(.post, "/v1/attachments", raw: body, token: ann.accessToken, headers: headers)
                #expect(reply.status == .created, "\(reply.text)")
                #expect(reply["size"] as? Int == small.count)
                let id = try #require(reply["id"] as? String)
                #expect(try await client.call(.get, "/v1/attachments/\(id)", token: ann.accessToken).bytes == small)
            }
            #expect(Self.storedFiles(parley).count == 1, "the same bytes twice are one file; nothing staged is left")
        }
    }

    @Test func aFormWithoutAFileOrWithBrokenSyntaxIsA400() async throws {
        let parley = try await TestParley.start()
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let headers: HTTPFields = [.contentType: "multipart/form-data; boundary=b"]
            let noFile = Array("--b\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--b--\r\n".utf8)
            let missing = try await client.call(.post, "/v1/attachments", raw: noFile, token: ann.accessToken, headers: headers)
            #expect(missing.status == .badRequest)
            #expect(missing.errorCode == "missing_body")
            let cut = Array("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n".utf8) + TestImages.png
            let malformed = try await client.call(.post, "/v1/attachments", raw: cut, token: ann.accessToken, headers: headers)
            #expect(malformed.status == .badRequest)
            #expect(malformed.errorCode == "invalid_multipart")
            // A header name past ASCII (which made the parser trap, found by fuzzing): a 400 too.
            let nonASCII = Array("--b\r\nContent-".utf8) + [0xB8] + Array("isposition: form-data; name=\"file\"\r\n\r\n".utf8)
                + TestImages.png + Array("\r\n--b--\r\n".utf8)
            let refused = try await client.call(.post, "/v1/attachments", raw: nonASCII, token: ann.accessToken, headers: headers)
            #expect(refused.status == .badRequest)
            #expect(refused.errorCode == "invalid_multipart")
            #expect(Self.storedFiles(parley) == [])
        }
    }

    @Test func eachUserHasAnAttachmentQuota() async throws {
        let fileSize = TestImages.png.count + 1000
        let parley = try await TestParley.start { config in config.attachmentQuotaBytes = 2 * fileSize + 500 }
        try await parley.test { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let bo = try await client.signUp("Bo", "bo@example.com", outbox: parley.outbox)
            for seed in 1...2 as ClosedRange<UInt64> {
                let reply = try await client.call(.post, "/v1/attachments", raw: Self.png(padding: 1000, seed: seed), token: ann.accessToken)
                #expect(reply.status == .created, "\(reply.text)")
            }
            // The third would pass the quota: refused while it arrives, and nothing of it is kept.
            let third = try await client.call(.post, "/v1/attachments", raw: Self.png(padding: 1000, seed: 3), token: ann.accessToken)
            #expect(third.status == .contentTooLarge)
            #expect(third.errorCode == "quota_exceeded")
            // What is left of the quota still takes a file that fits it.
            let fits = try await client.call(.post, "/v1/attachments", raw: Self.png(padding: 400, seed: 4), token: ann.accessToken)
            #expect(fits.status == .created, "\(fits.text)")
            let over = try await client.call(.post, "/v1/attachments", raw: Self.png(padding: 10, seed: 5), token: ann.accessToken)
            #expect(over.errorCode == "quota_exceeded")
            // The quota is Ann's: Bo's uploads do not count against it, nor hers against his.
            let bos = try await client.call(.post, "/v1/attachments", raw: Self.png(padding: 1000, seed: 3), token: bo.accessToken)
            #expect(bos.status == .created)
            #expect(Self.storedFiles(parley).count == 4)
        }
    }

    /// A 24 MiB file through the real server: ranges anywhere in it come back byte for byte, with
    /// the length and position of just that range.
    @Test func aRangeOfALargeFileIsExact() async throws {
        let size = 24 << 20
        let parley = try await TestParley.start { config in config.maxImageBytes = 32 << 20 }
        let file = Self.png(padding: size - TestImages.png.count, seed: 7)
        try await parley.test(.live) { client in
            let ann = try await client.signUp("Ann", "ann@example.com", outbox: parley.outbox)
            let upload = try await client.call(.post, "/v1/attachments", raw: file, token: ann.accessToken)
            #expect(upload.status == .created, "\(upload.text)")
            let id = try #require(upload["id"] as? String)
            for (header, range) in [("bytes=20000000-21048575", 20_000_000...21_048_575), ("bytes=0-0", 0...0),
                                    ("bytes=-70000", (size - 70_000)...(size - 1)), ("bytes=25165000-", 25_165_000...(size - 1))] {
                let part = try await client.call(.get, "/v1/attachments/\(id)", token: ann.accessToken, headers: [.range: header])
                #expect(part.status == .partialContent, "\(header)")
                #expect(part.headers[.contentRange] == "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
                #expect(part.headers[.contentLength] == "\(range.count)")
                #expect(part.bytes == Array(file[range]), "\(header)")
            }
            let whole = try await client.call(.get, "/v1/attachments/\(id)", token: ann.accessToken)
            #expect(whole.status == .ok)
            #expect(whole.bytes.count == size)
            #expect(whole.bytes == file)
        }
    }
}
