import Foundation
import Testing

/// A local stand-in for an SMS provider's Messages API (Tests/Peers/sms_standin.py): real HTTP
/// on 127.0.0.1, checking each request's path, Basic auth, form and numbers the way the provider
/// does, and answering the way it does. Driven over stdio like ``APNsStandIn``; closing stdin ends it.
public final class SMSProviderStandIn: @unchecked Sendable {  // immutable after start; the child is only signalled
    /// A message the stand-in accepted.
    public struct Message: Decodable, Sendable, Equatable {
        public var to: String
        public var from: String
        public var body: String
        public var sid: String
    }

    /// A request it refused, with the provider's status and error code.
    public struct Refusal: Decodable, Sendable, Equatable {
        public var status: Int
        public var code: Int
        public var path: String
    }

    public let port: Int
    public let accountID: String
    public let authToken: String
    public let from: String
    private let process: ChildProcess
    private let stdin: Pipe
    private let control: ControlLines
    private let stderrLog: OutputLog

    /// `http://127.0.0.1:<port>`: the base URL for `sms.http.url`.
    public var url: String { "http://127.0.0.1:\(port)" }

    public static func start(accountID: String = "AC" + String(repeating: "5a", count: 16), authToken: String = "standin-auth-token",
                             from: String = "+15005550006", sourceLocation: SourceLocation = #_sourceLocation) async throws -> SMSProviderStandIn {
        let python = try APNsStandIn.python(sourceLocation: sourceLocation)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-u", AiortcPeer.script(named: "sms_standin.py"), "--account-id", accountID, "--auth-token", authToken,
                             "--from", from]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let control = ControlLines(stdout: stdout.fileHandleForReading, who: "the SMS provider stand-in")
        let log = OutputLog()
        drain(stderr.fileHandleForReading, chunk: { log.append($0) })
        try process.run()
        struct Ready: Decodable { var port: Int }
        do {
            let line = try await control.next(timeout: .seconds(20), log: log)
            guard let ready = try? JSONDecoder().decode(Ready.self, from: Data(line.utf8)) else {
                throw ChildProcessError.badLine("the SMS provider stand-in", line)
            }
            return SMSProviderStandIn(process: process, stdin: stdin, control: control, log: log, port: ready.port,
                                      accountID: accountID, authToken: authToken, from: from)
        } catch {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            throw error
        }
    }

    private init(process: ChildProcess, stdin: Pipe, control: ControlLines, log: OutputLog, port: Int, accountID: String, authToken: String, from: String) {
        self.process = process
        self.stdin = stdin
        self.control = control
        self.stderrLog = log
        self.port = port
        self.accountID = accountID
        self.authToken = authToken
        self.from = from
    }

    /// Every message accepted so far, and every request refused, in arrival order.
    public func record() async throws -> (messages: [Message], refused: [Refusal]) {
        struct Answer: Decodable { var messages: [Message]; var refused: [Refusal] }
        let line = try await control.exchange(Data("{\"op\": \"messages\"}\n".utf8), writer: stdin.fileHandleForWriting, log: stderrLog)
        do {
            let answer = try JSONDecoder().decode(Answer.self, from: Data(line.utf8))
            return (answer.messages, answer.refused)
        } catch {
            throw ChildProcessError.badLine("the SMS provider stand-in", "\(error): \(line)")
        }
    }

    /// The messages accepted so far.
    public func messages() async throws -> [Message] { try await record().messages }

    public var stderr: String { stderrLog.text }

    /// Closes its stdin (it exits), and kills it if it lingers.
    public func stop() {
        try? stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
