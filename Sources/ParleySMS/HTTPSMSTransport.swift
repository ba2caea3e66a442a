import AsyncHTTPClient
import Foundation
import Logging
import NIOCore


/// Sends through an SMS provider's HTTP API in the shape Twilio's Programmable Messaging made
/// common (and other providers copy): `POST <base>/2010-04-01/Accounts/<account>/Messages.json`,
/// HTTP Basic auth with the account id and its token, a form body of `To`, `From` and `Body`;
/// `201` with the message's `sid` when queued, an error status with a JSON `{code, message}` when not.
public struct HTTPSMSTransport: SMSTransport {
    public struct Configuration: Sendable {
        /// `https://api.twilio.com`, or any provider (or test stand-in) speaking the same API.
        public var baseURL: String
        public var accountID: String
        public var authToken: String
        /// The sender: a number in E.164 or an alphanumeric sender id the provider allows.
        public var from: String
        public var timeout: TimeAmount

        public init(baseURL: String, accountID: String, authToken: String, from: String, timeout: TimeAmount = .seconds(10)) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.accountID = accountID
            self.authToken = authToken
            self.from = from
            self.timeout = timeout
        }
    }

    public let configuration: Configuration
    private let logger: Logger

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    public func send(_ message: SMSMessage) async throws {
        let account = configuration.accountID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? configuration.accountID
        var request = HTTPClientRequest(url: "\(configuration.baseURL)/2010-04-01/Accounts/\(account)/Messages.json")
        request.method = .POST
        let credentials = Data("\(configuration.accountID):\(configuration.authToken)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        let form = Self.formEncode([("To", message.to), ("From", configuration.from), ("Body", message.text)])
        request.body = .bytes(ByteBuffer(string: form))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await HTTPClient.shared.execute(request, timeout: configuration.timeout)
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            throw SMSError.unreachable("\(error)")
        }
        struct Answer: Decodable { var sid: String?; var code: Int?; var message: String? }
        let answer = try? JSONDecoder().decode(Answer.self, from: Data(body.readableBytesView))
        guard (200..<300).contains(response.status.code) else {
            throw SMSError.refused(status: Int(response.status.code), code: answer?.code,
                                   message: answer?.message ?? String(buffer: body).prefix(200).description)
        }
        guard let sid = answer?.sid else { throw SMSError.unreachable("answer without a message sid") }
        logger.info("SMS queued at the provider", metadata: ["sms.to": "\(message.to)", "sms.sid": "\(sid)"])
    }

    /// `application/x-www-form-urlencoded` (WHATWG URL §5.2): unreserved bytes as they are, space as `+`.
    static func formEncode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._*")
        func encode(_ text: String) -> String {
            text.split(separator: " ", omittingEmptySubsequences: false)
                .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }.joined(separator: "+")
        }
        return fields.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}
