import Foundation
import Glibc
import Testing
import ParleyDTLS
import ParleySRTP
import ParleyTestSupport

/// Interop with an independent DTLS client over real UDP on 127.0.0.1: the `openssl s_client`
/// program (Debian package `openssl`), offering Chromium's SRTP order with an RSA client
/// certificate. It prints the negotiated profile and its own keying-material export, which must
/// equal the server's; closing its stdin makes it send close_notify.
@Suite("Interop: openssl s_client -dtls1_2 -use_srtp over UDP")
struct OpenSSLCLIInteropTests {
    static func opensslPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/openssl" } + ["/usr/bin/openssl"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("s_client completes the handshake, agrees on AEAD_AES_128_GCM and the keys, then closes")
    func sClient() throws {
        guard let openssl = Self.opensslPath() else {
            Issue.record("the openssl command is missing: install the Debian package `openssl` (scripts/install-deps.sh openssl)")
            return
        }
        let context = try DTLSContext()
        let clientCertificate = try DTLSCertificate(keyType: .rsa2048, commonName: "s_client")
        var server = try DTLSServer(context: context, remoteFingerprint: clientCertificate.fingerprint,
                                    initialRetransmissionTimeout: .milliseconds(200))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-dtls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certPath = directory.appendingPathComponent("cert.pem").path
        let keyPath = directory.appendingPathComponent("key.pem").path
        let outPath = directory.appendingPathComponent("out.txt").path
        try clientCertificate.certificatePEM.write(toFile: certPath, atomically: true, encoding: .utf8)
        try clientCertificate.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)

        let socket = try UDPSocket()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "s_client", "-dtls1_2", "-connect", "127.0.0.1:\(socket.port)",
            "-use_srtp", "SRTP_AES128_CM_SHA1_80:SRTP_AEAD_AES_256_GCM:SRTP_AEAD_AES_128_GCM",
            "-cert", certPath, "-key", keyPath,
            "-keymatexport", "EXTRACTOR-dtls_srtp", "-keymatexportlen", "56",
        ]
        process.standardInput = FileHandle.nullDevice  // EOF once connected: s_client closes
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var states: [DTLSState] = []
        let deadline = ContinuousClock.now + .seconds(15)
        loop: while ContinuousClock.now < deadline {
            switch server.state {
            case .closed, .failed: break loop
            case .handshaking, .connected: break
            }
            let wait = min(server.nextTimeout ?? .milliseconds(100), .milliseconds(100))
            var outcome: DTLSOutcome
            if let datagram = socket.receive(timeout: wait) {
                outcome = datagram.withUnsafeBytes { server.receive($0) }
            } else {
                outcome = server.handleTimeout()
            }
            if let state = outcome.newState { states.append(state) }
            for datagram in outcome.datagrams { socket.send(datagram) }
        }
        let exitDeadline = ContinuousClock.now + .seconds(5)
        while process.isRunning && ContinuousClock.now < exitDeadline { usleep(20_000) }
        try output.close()
        let text = try String(contentsOfFile: outPath, encoding: .utf8)

        guard states.count == 2, case .connected(let keys) = states[0], states[1] == .closed else {
            Issue.record("server states \(states), s_client said:\n\(text)")
            return
        }
        #expect(keys.profile == .aeadAES128GCM)
        #expect(text.contains("SRTP Extension negotiated, profile=SRTP_AEAD_AES_128_GCM"), "\(text)")
        let material = keys.clientWrite.key + keys.serverWrite.key + keys.clientWrite.salt + keys.serverWrite.salt
        let hex = material.map { String(format: "%02X", $0) }.joined()
        #expect(text.uppercased().contains(hex), "s_client's export differs:\n\(text)")
    }
}

/// A UDP socket on 127.0.0.1 that answers whoever wrote last.
final class UDPSocket {
    let descriptor: Int32
    let port: UInt16
    private var peer = sockaddr_in()

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    func receive(timeout: Duration) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let millis = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, max(millis, 1)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 2048)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(descriptor, &buffer, buffer.count, 0, $0, &length) }
        }
        return count > 0 ? Array(buffer.prefix(count)) : nil
    }

    func send(_ datagram: [UInt8]) {
        _ = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, datagram, datagram.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
