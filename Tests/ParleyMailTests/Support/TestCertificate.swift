import Foundation
import ParleyTestSupport

/// A self-signed certificate for `localhost` / `127.0.0.1`, made with the `openssl` CLI.
struct TestCertificate {
    let certificatePath: String
    let keyPath: String

    static func make(in directory: URL) throws -> TestCertificate {
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw OpenSSLFailed(message: String(decoding: stderr, as: UTF8.self))
        }
        return TestCertificate(certificatePath: cert, keyPath: key)
    }

    struct OpenSSLFailed: Error, CustomStringConvertible {
        var message: String
        var description: String { "openssl failed: \(message)" }
    }
}
