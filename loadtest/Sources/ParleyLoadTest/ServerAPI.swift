import AsyncHTTPClient
import Foundation
import NIOCore

/// The REST side of a running Parley, as the harness uses it: the operator's routes (seed users,
/// read the status) and the few user routes a scenario needs (open dialogs).
public struct ServerAPI: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var status: Int
        public var body: String
        public var description: String { "HTTP \(status): \(body)" }
    }

    /// A seeded account, signed in.
    public struct User: Sendable, Equatable {
        public var id: String
        public var email: String
        public var accessToken: String
    }

    /// The figures of `GET /admin/status` the harness reads.
    public struct Status: Sendable, Equatable, Decodable {
        public struct Relay: Sendable, Equatable, Decodable {
            public var legs: Int
            public var packetsIn: UInt64
            public var packetsOut: UInt64
            public var bytesIn: UInt64
            public var bytesOut: UInt64
            public var decryptFailures: UInt64
            public var dropped: UInt64
            /// TCP's share (ICE over TCP); absent from servers without it.
            public var tcp: TCP?
        }
        public struct TCP: Sendable, Equatable, Decodable {
            public var packetsIn: UInt64
            public var packetsOut: UInt64
            public var bytesIn: UInt64
            public var bytesOut: UInt64
        }
        public struct Process: Sendable, Equatable, Decodable {
            public var cpuSeconds: Double
            public var residentBytes: UInt64
        }
        public struct Calls: Sendable, Equatable, Decodable {
            public var ringing: Int
            public var active: Int
        }
        public var connections: Int
        public var relay: Relay
        public var process: Process
        public var calls: Calls
    }

    /// `http://host:port`, no trailing slash.
    public var baseURL: String
    public var adminToken: String

    public init(baseURL: String, adminToken: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.adminToken = adminToken
    }

    /// The realtime socket's address.
    public var realtimeURL: String {
        (baseURL.hasPrefix("https") ? "wss" : "ws") + baseURL.drop(while: { $0 != ":" }) + "/v1/realtime"
    }

    /// `count` verified accounts, signed in (`POST /admin/users` with `sessions`), befriended
    /// `pairs` or `all`.
    public func seedUsers(count: Int, prefix: String, befriend: String) async throws -> [User] {
        let body = try await call("POST", "/admin/users", token: adminToken, json: [
            "count": count, "namePrefix": prefix, "password": "load test password", "befriend": befriend,
            "sessions": true,
        ])
        guard let users = body["users"] as? [[String: Any]] else { throw Failure(status: 201, body: "no users") }
        return try users.map {
            guard let id = $0["id"] as? String, let email = $0["email"] as? String, let token = $0["accessToken"] as? String else {
                throw Failure(status: 201, body: "a user without id, email or token")
            }
            return User(id: id, email: email, accessToken: token)
        }
    }

    public func status() async throws -> Status {
        let (status, data) = try await send("GET", "/admin/status", token: adminToken, body: nil)
        guard status == 200 else { throw Failure(status: status, body: String(decoding: data, as: UTF8.self)) }
        return try JSONDecoder().decode(Status.self, from: data)
    }

    /// `POST /v1/dialogs`; returns the dialog's id.
    public func openDialog(token: String, _ body: [String: Any]) async throws -> String {
        let reply = try await call("POST", "/v1/dialogs", token: token, json: body)
        guard let id = (reply["dialog"] as? [String: Any])?["id"] as? String else { throw Failure(status: 0, body: "no dialog id") }
        return id
    }

    /// A JSON request whose answer must be 2xx with a JSON object.
    func call(_ method: String, _ path: String, token: String?, json: [String: Any]) async throws -> [String: Any] {
        let (status, data) = try await send(method, path, token: token, body: try JSONSerialization.data(withJSONObject: json))
        guard (200..<300).contains(status) else { throw Failure(status: status, body: String(decoding: data, as: UTF8.self)) }
        return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func send(_ method: String, _ path: String, token: String?, body: Data?) async throws -> (Int, Data) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return (Int(response.status.code), Data(bytes.readableBytesView))
    }
}
