import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore

/// An upload to a live server whose body the test sends in two goes: the first bytes at once,
/// the rest when it says, so the upload stays under way on the server until then.
struct HeldUpload: Sendable {
    let rest: [UInt8]
    let body: AsyncStream<ByteBuffer>.Continuation
    let reply: Task<Reply, any Error>

    /// Starts `POST /v1/attachments` of `file` (declared in full by Content-Length) and sends its
    /// first `first` bytes.
    static func start(_ http: HTTPClient, port: Int, token: String, file: [UInt8], first: Int = 1024) -> HeldUpload {
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/attachments")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.body = .stream(stream, length: .known(file.count))
        continuation.yield(ByteBuffer(bytes: file.prefix(first)))
        let reply = Task {
            let response = try await http.execute(request, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 1 << 20)
            var headers = HTTPFields()
            for (name, value) in response.headers { if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) } }
            return Reply(status: HTTPResponse.Status(code: Int(response.status.code)), headers: headers, bytes: Array(bytes.readableBytesView))
        }
        return HeldUpload(rest: Array(file.dropFirst(first)), body: continuation, reply: reply)
    }

    /// Sends the rest of the file and waits for the answer.
    func finish() async throws -> Reply {
        body.yield(ByteBuffer(bytes: rest))
        body.finish()
        return try await reply.value
    }

    /// Drops the connection mid-body, as a phone losing its network does.
    func abort() async {
        reply.cancel()
        body.finish()
        _ = try? await reply.value
    }
}
