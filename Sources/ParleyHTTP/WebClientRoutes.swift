import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore

/// The web client's files on disk (web/ in the repository), and what its first screens need to
/// know beyond the API: where mail goes while it is written to the outbox instead of sent.
public struct WebClient: Sendable {
    /// An absolute folder holding index.html, app.css and js/….
    public var directory: String
    /// The outbox folder while mail goes there (the sign-up screen says where the link is); nil
    /// when mail is sent.
    public var outboxDirectory: String?

    public init(directory: String, outboxDirectory: String?) {
        self.directory = directory
        self.outboxDirectory = outboxDirectory
    }
}

/// `GET /` (index.html) and `GET /web/…`: the single-page web client, plain files served as
/// they are (no build step), each with a strict Content-Security-Policy: scripts and styles only
/// from this origin, no inline script, media only from here or blob: URLs the page made from
/// bytes it fetched with its token. Not part of the API: scripts/check-openapi.py leaves these
/// routes out of docs/openapi.yaml by name.
struct WebClientRoutes {
    let client: WebClient

    /// Extensions served, and their types; anything else is 404.
    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "jpg": "image/jpeg", "txt": "text/plain; charset=utf-8",
    ]

    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
        "media-src 'self' blob:", "connect-src 'self'", "manifest-src 'self'", "base-uri 'none'",
        "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    struct Settings: ResponseEncodable {
        struct Mail: Encodable { let transport: String; let outboxDirectory: String? }
        let mail: Mail
    }

    func add(to router: Router<ParleyRequestContext>) {
        router.get("/") { _, _ in try file("index.html") }
        router.get("web/settings.json") { _, _ -> Response in
            let settings = Settings(mail: .init(transport: client.outboxDirectory == nil ? "smtp" : "outbox",
                                                outboxDirectory: client.outboxDirectory))
            return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                            body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(settings))))
        }
        router.get("web/:name") { _, context in try file(context.parameters.require("name")) }
        router.get("web/js/:name") { _, context in try file(context.parameters.require("name"), in: "js") }
    }

    /// A file of web/ or web/js/ by a name made of letters, digits, `-`, `_` and one `.` before a
    /// known extension: nothing else (no `..`, no hidden files, no other folder) reaches the disk.
    func file(_ name: String, in folder: String? = nil) throws -> Response {
        guard Self.isPlainName(name),
              let type = name.split(separator: ".").last.flatMap({ Self.types[String($0)] })
        else { throw ParleyError.notFound("File") }
        let path = client.directory + "/" + (folder.map { $0 + "/" } ?? "") + name
        guard let data = FileManager.default.contents(atPath: path) else { throw ParleyError.notFound("File") }
        return Response(
            status: .ok,
            headers: [
                .contentType: type, .cacheControl: "no-cache", .contentSecurityPolicy: Self.contentSecurityPolicy,
                HTTPField.Name("Cross-Origin-Opener-Policy")!: "same-origin",
                HTTPField.Name("Permissions-Policy")!: "camera=(self), microphone=(self), geolocation=()",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func isPlainName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(isPlain) }
    }

    static func isPlain(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-" || character == "_")
    }
}
