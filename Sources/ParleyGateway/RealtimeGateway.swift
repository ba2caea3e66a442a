import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import ParleyAccounts
import ParleyCalls
import ParleyCore
import ParleyRealtime

/// GET /v1/realtime: one WebSocket per device, authenticated by its access token (the
/// `Authorization` header, or `?token=` for clients that cannot set headers).
public struct RealtimeGateway: Sendable {
    public struct Settings: Sendable {
        public var maxFrameBytes: Int
        public var mailboxCapacity: Int

        public init(maxFrameBytes: Int = 64 * 1024, mailboxCapacity: Int = 1024) {
            self.maxFrameBytes = maxFrameBytes
            self.mailboxCapacity = mailboxCapacity
        }
    }

    public static let path = "/v1/realtime"

    let accounts: AccountService
    let events: EventLog
    let commands: RealtimeCommands
    let settings: Settings
    let presence: (any DevicePresence)?
    /// TURN servers for the `hello`, so a device woken for a call has them before it answers.
    let iceServers: ICEServerIssuer

    public init(accounts: AccountService, events: EventLog, commands: RealtimeCommands, presence: (any DevicePresence)? = nil,
                iceServers: ICEServerIssuer = .disabled, settings: Settings = .init()) {
        self.iceServers = iceServers
        self.accounts = accounts
        self.events = events
        self.commands = commands
        self.presence = presence
        self.settings = settings
    }

    /// The HTTP/1 server with WebSocket upgrade on `path`; everything else goes to the router.
    public func serverBuilder() -> HTTPServerBuilder {
        let gateway = self
        return .http1WebSocketUpgrade(configuration: .init(ws: .init(maxFrameSize: settings.maxFrameBytes))) { request, channel, logger in
            guard let (path, query) = Self.split(request.path), path == Self.path,
                  let token = Self.token(headers: request.headerFields, query: query),
                  let principal = try? await gateway.accounts.authenticate(accessToken: token)
            else { return .dontUpgrade }   // the router answers: 401, or 400 upgrade_required
            var sessionLogger = logger
            sessionLogger[metadataKey: "user"] = "\(principal.userID)"
            let session = RealtimeSession(principal: principal, gateway: gateway, logger: sessionLogger)
            return .upgrade([:]) { inbound, outbound, _ in
                try await session
                    .run(inbound: inbound, outbound: outbound, channel: channel)
            }
        }
    }

    static func split(_ path: String?) -> (String, Substring?)? {
        guard let path else { return nil }
        guard let mark = path.firstIndex(of: "?") else { return (path, nil) }
        return (String(path[..<mark]), path[path.index(after: mark)...])
    }

    static func token(headers: HTTPFields, query: Substring?) -> String? {
        if let header = headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
        }
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("token=") {
            return String(pair.dropFirst(6)).removingPercentEncoding
        }
        return nil
    }
}
