import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// The small HTML page behind the link in the verification mail.
enum VerificationPage {
    static func response(status: HTTPResponse.Status, title: String, message: String, confirmToken: String? = nil) -> Response {
        // Opening the link only shows a button: mail scanners and link previews fetch links, and
        // a GET must not use up the token; the person's press (a POST) verifies.
        let form = confirmToken.map { token in
            """
            <form method="post" action="/v1/auth/verify/confirm"><input type="hidden" name="token" value="\(escape(token))">
            <button type="submit">Verify my address</button></form>
            """
        } ?? ""
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Parley — \(escape(title))</title>
            <style>body{font-family:-apple-system,Helvetica,Arial,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
            h1{font-size:1.5rem}button{font-size:1rem;padding:.6rem 1.2rem}</style></head>
            <body><h1>\(escape(title))</h1><p>\(escape(message))</p>\(form)</body></html>
            """
        return Response(
            status: status,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
                .xContentTypeOptions: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
