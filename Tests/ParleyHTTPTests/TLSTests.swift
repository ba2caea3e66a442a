import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
import ParleyTestSupport
import Testing

/// The real `parley` with `http.tls.certificate`/`key`: HTTPS and WSS on its one port, with the
/// configured certificate; a client that does not trust it, or speaks plain HTTP, gets nothing.
@Suite(.serialized) struct TLSTests {
    /// A self-signed certificate for 127.0.0.1, made by the openssl CLI.
    static func certificate(in folder: URL) throws -> (certificate: String, key: String) {
        let certificate = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        let openssl = ChildProcess()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                             "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl could not make a certificate")
        return (certificate, key)
    }

    static func json(_ client: HTTPClient, _ method: HTTPMethod, _ url: String, _ body: [String: String]? = nil) async throws -> (Int, [String: Any]) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), (try? JSONSerialization.jsonObject(with: Data(buffer: bytes))) as? [String: Any] ?? [:])
    }

    @Test func httpsAndWSSAreServedWithTheConfiguredCertificate() async throws {
        let data = try makeTemporaryDirectory(prefix: "parley-tls")
        defer { try? FileManager.default.removeItem(at: data) }
        let (certificate, key) = try Self.certificate(in: data)
        let port = try await LiveSMTPServer.freePort()
        let server = try ParleyProcess.start(data: data.path + "/data", port: port,
                                             environment: ["HTTP_TLS_CERTIFICATE": certificate, "HTTP_TLS_KEY": key])
        defer { server.kill9() }

        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        let stranger = HTTPClient(eventLoopGroupProvider: .singleton)   // the system's trust store only
        do {
            try await Self.exercise(client: client, stranger: stranger, tls: tls, port: port, data: data)
        } catch {
            Issue.record("\(error)")
        }
        try await client.shutdown()
        try await stranger.shutdown()
    }

    static func exercise(client: HTTPClient, stranger: HTTPClient, tls: TLSConfiguration, port: Int, data: URL) async throws {
        let base = "https://127.0.0.1:\(port)"
        var healthy = false
        for _ in 0..<200 where !healthy {
            healthy = (try? await Self.json(client, .GET, base + "/health").0) == 200
            if !healthy { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(healthy, "no HTTPS answer on \(port)")
        await #expect(throws: (any Error).self, "a client that does not trust the certificate gets nothing") {
            _ = try await Self.json(stranger, .GET, base + "/health")
        }
        await #expect(throws: (any Error).self, "plain HTTP on the TLS port gets nothing") {
            _ = try await Self.json(stranger, .GET, "http://127.0.0.1:\(port)/health")
        }

        // Sign up and in over HTTPS, then open the realtime socket over WSS.
        let outbox = Outbox(directory: data.path + "/data/outbox")
        #expect(try await Self.json(client, .POST, base + "/v1/auth/register", ["name": "Ann", "email": "ann@example.com",
                                                                                 "password": "correct horse", "dateOfBirth": "2000-01-01"]).0 == 201)
        let mail = try await outbox.mail(to: "ann@example.com")
        #expect(mail.contains("https://127.0.0.1:\(port)/"), "links in mail are https")
        #expect(try await Self.json(client, .POST, base + "/v1/auth/verify", ["token": try token(inMail: mail)]).0 == 200)
        let login = try await Self.json(client, .POST, base + "/v1/auth/login", ["email": "ann@example.com", "password": "correct horse"])
        let token = try #require(login.1["accessToken"] as? String)
        var logger = Logger(label: "wss-test")
        logger.logLevel = .critical
        let hello = Hello()
        // By name: a TLS client may not send an IP address as SNI.
        try await WebSocketClient.connect(url: "wss://localhost:\(port)/v1/realtime?token=\(token)", tlsConfiguration: tls, logger: logger) { inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: 1 << 16) {
                if case .text(let text) = message { await hello.set(text) }
                break
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        let first = try #require(await hello.text)
        #expect(first.contains(#""type":"hello""#), "\(first)")
    }

    actor Hello {
        var text: String?
        func set(_ value: String) { text = value }
    }
}
