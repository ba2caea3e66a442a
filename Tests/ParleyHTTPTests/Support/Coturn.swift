import Foundation
import ParleyTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Debian's coturn (`turnserver`), started by a test on a free loopback port with a
/// configuration of its own, in the shared-secret scheme Parley signs for (`use-auth-secret`).
///
/// Unlike production (docs/deploying.md), it listens and relays on 127.0.0.1 and lets peers be
/// loopback addresses (`allow-loopback-peers`): Parley's relay is on 127.0.0.1 in tests.
final class Coturn: @unchecked Sendable {  // the child is only signalled after launch
    static let executable = "/usr/bin/turnserver"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Where a configuration puts coturn: its ports, files and secret.
    struct Setup: Sendable {
        let port: Int
        let tlsPort: Int
        let directory: String
        let secret: String
        /// A self-signed certificate for 127.0.0.1 (EC P-256), made for this server.
        var certificate: String { directory + "/cert.pem" }
        var privateKey: String { directory + "/key.pem" }
    }

    let setup: Setup
    var port: Int { setup.port }
    var secret: String { setup.secret }
    var directory: String { setup.directory }
    /// base64 SHA-256 of the certificate's public key, for Chromium's
    /// `--ignore-certificate-errors-spki-list`: a client trusts this one self-signed certificate.
    let certificateSPKI: String
    private let process: ChildProcess

    /// `turn:` URIs of this server, over UDP and over TCP, and `turns:` (TLS over TCP).
    var udpURI: String { "turn:127.0.0.1:\(port)?transport=udp" }
    var tcpURI: String { "turn:127.0.0.1:\(port)?transport=tcp" }
    var tlsURI: String { "turns:127.0.0.1:\(setup.tlsPort)?transport=tcp" }

    /// The configuration file's text, for failure messages and the report.
    let configuration: String

    var log: String { (try? String(contentsOfFile: directory + "/turn.log", encoding: .utf8)) ?? "" }

    /// A turnserver.conf for a setup.
    typealias Configuration = @Sendable (Setup) -> String

    /// Starts coturn and waits until it answers a STUN Binding request (a few hundred ms).
    static func start(secret: String, configuration: Configuration = Coturn.testConfiguration) async throws -> Coturn {
        var lastError: (any Error)?
        for _ in 0..<3 {   // a port found free may be taken before coturn binds it
            let port = try freePort()
            var tlsPort = try freePort()
            while tlsPort == port { tlsPort = try freePort() }
            let coturn = try Coturn(port: port, tlsPort: tlsPort, secret: secret, configuration: configuration)
            for _ in 0..<50 {
                if TURNProbe(port: coturn.port).answersBinding() { return coturn }
                if !coturn.process.isRunning { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            lastError = CoturnError.didNotStart(coturn.log.suffix(3000).description)
            coturn.stop()
        }
        throw lastError ?? CoturnError.didNotStart("")
    }

    private init(port: Int, tlsPort: Int, secret: String, configuration: Configuration) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-coturn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        setup = Setup(port: port, tlsPort: tlsPort, directory: directory, secret: secret)
        certificateSPKI = try Self.shell("""
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \\
              -addext subjectAltName=IP:127.0.0.1 -keyout '\(setup.privateKey)' -out '\(setup.certificate)' 2>/dev/null &&
            openssl x509 -in '\(setup.certificate)' -pubkey -noout | openssl pkey -pubin -outform der |
              openssl dgst -sha256 -binary | base64
            """)
        self.configuration = configuration(setup)
        try self.configuration.write(toFile: directory + "/turnserver.conf", atomically: true, encoding: .utf8)
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["-c", directory + "/turnserver.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// Loopback only, shared-secret credentials, peers limited to Parley's media address
    /// (127.0.0.1 in tests, which needs `allow-loopback-peers`).
    static func testConfiguration(_ setup: Setup) -> String {
        """
        # coturn for Parley's tests: loopback only, shared-secret credentials.
        listening-ip=127.0.0.1
        listening-port=\(setup.port)
        tls-listening-port=\(setup.tlsPort)
        cert=\(setup.certificate)
        pkey=\(setup.privateKey)
        relay-ip=127.0.0.1
        use-auth-secret
        static-auth-secret=\(setup.secret)
        realm=parley.test
        fingerprint
        # Parley's relay is on 127.0.0.1 in tests; production denies loopback and private peers.
        allow-loopback-peers
        denied-peer-ip=0.0.0.0-255.255.255.255
        allowed-peer-ip=127.0.0.1
        no-multicast-peers
        user-quota=10
        total-quota=100
        no-cli
        no-dtls
        no-software-attribute
        userdb=\(setup.directory)/turndb
        pidfile=\(setup.directory)/turn.pid
        log-file=\(setup.directory)/turn.log
        simple-log
        no-stdout-log

        """
    }

    /// docs/deploying.md's recommended turnserver.conf, as written, but on 127.0.0.1 and the
    /// setup's ports, with its self-signed certificate, logging to its folder.
    static func recommendedConfiguration(_ setup: Setup) -> String {
        let doc = (try? String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/deploying.md").path, encoding: .utf8)) ?? ""
        guard let section = doc.range(of: "### coturn"), let open = doc.range(of: "```ini\n", range: section.upperBound..<doc.endIndex),
              let close = doc.range(of: "```", range: open.upperBound..<doc.endIndex) else { return "# docs/deploying.md has no ini block under ### coturn\n" }
        var lines: [String] = []
        for line in doc[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            switch line.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" {
            case "listening-port": lines.append("listening-port=\(setup.port)")
            case "tls-listening-port": lines.append("tls-listening-port=\(setup.tlsPort)")
            case "cert": lines.append("cert=\(setup.certificate)")
            case "pkey": lines.append("pkey=\(setup.privateKey)")
            case "listening-ip", "relay-ip": lines.append(line.prefix { $0 != "=" } + "=127.0.0.1")
            case "static-auth-secret": lines.append("static-auth-secret=\(setup.secret)")
            case "syslog": lines.append(contentsOf: ["log-file=\(setup.directory)/turn.log", "simple-log", "no-stdout-log"])
            default: lines.append(line)
            }
        }
        lines += ["userdb=\(setup.directory)/turndb", "pidfile=\(setup.directory)/turn.pid", ""]
        return lines.joined(separator: "\n")
    }

    /// SIGKILL (test processes hand children SIGTERM blocked), then the folder goes.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs a `/bin/sh` command line and returns its standard output, trimmed.
    private static func shell(_ command: String) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !text.isEmpty else { throw CoturnError.didNotStart("openssl could not make a certificate: \(command)") }
        return text
    }

    enum CoturnError: Error, CustomStringConvertible {
        case didNotStart(String)
        var description: String {
            switch self { case .didNotStart(let log): "coturn did not answer on its port; its log ends:\n\(log)" }
        }
    }

    /// A port free for both TCP and UDP on 127.0.0.1, as the kernel hands out for port 0.
    static func freePort() throws -> Int {
        for _ in 0..<20 {
            let port = try bind(type: SOCK_STREAM, port: 0)
            if (try? bind(type: SOCK_DGRAM, port: port)) != nil { return port }
        }
        throw CoturnError.didNotStart("no free port")
    }

    private static func bind(type: __socket_type, port: Int) throws -> Int {
        let fd = socket(AF_INET, Int32(type.rawValue), 0)
        guard fd >= 0 else { throw CoturnError.didNotStart("socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw CoturnError.didNotStart("port \(port) taken") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
