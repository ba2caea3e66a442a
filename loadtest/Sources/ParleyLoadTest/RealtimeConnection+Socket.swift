import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The socket under a ``RealtimeConnection``: TCP (TLS for wss://) on the shared event loops, the
/// HTTP/1.1 upgrade with the bearer token, then a ``RealtimeFrameHandler`` that feeds the connection.
extension RealtimeConnection {
    /// Where a `ws://` or `wss://` URL points.
    struct Endpoint: Sendable {
        var host: String
        var port: Int
        var tls: Bool
        /// The request target: path and query.
        var target: String

        init?(_ url: String) {
            guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), scheme == "ws" || scheme == "wss",
                  let host = parts.host, !host.isEmpty else { return nil }
            self.host = host
            tls = scheme == "wss"
            port = parts.port ?? (tls ? 443 : 80)
            target = (parts.percentEncodedPath.isEmpty ? "/" : parts.percentEncodedPath) + (parts.percentEncodedQuery.map { "?" + $0 } ?? "")
        }

        var hostHeader: String {
            let name = host.contains(":") ? "[\(host)]" : host
            return port == (tls ? 443 : 80) ? name : "\(name):\(port)"
        }

        /// SNI takes a name, never an address (RFC 6066 §3).
        var serverName: String? {
            host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : host
        }
    }

    /// One TLS context for every wss:// socket (building one loads the system's trust roots).
    private static let tlsContext = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }

    /// Every realtime socket on one event loop of its own, not on NIO's shared group (a loop per
    /// core): the generator shares the machine with the server it measures, and one loop wakes
    /// for a burst of frames where two each woke for half of it. Chat, 1 000 users, 5 000 msg/s,
    /// release, the same server, in turn over three rounds: the generator at 24.0 / 23.3 / 24.2 %
    /// of a core against 26.7 / 26.6 / 25.9 % on the shared group's two loops. The calls
    /// scenario's media stays on the shared group (`MediaLink`).
    static let socketLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Connects, upgrades, and hands the channel to ``opened(_:)``; whatever ends the socket, before
    /// the upgrade or after, ends in ``fail()``.
    func open(url: String, token: String) {
        guard let address = Endpoint(url) else { return fail() }
        ClientBootstrap(group: Self.socketLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgraded = try self.configure(channel, address: address, token: token)
                    upgraded.whenComplete { result in
                        if case .success(true) = result { return }
                        channel.close(promise: nil)
                    }
                }
            }
            .connect(host: address.host, port: address.port)
            .whenComplete { result in
                switch result {
                case .success(let channel): channel.closeFuture.whenComplete { _ in self.fail() }
                case .failure: self.fail()
                }
            }
    }

    /// TLS if asked, then the HTTP client pipeline with the WebSocket upgrader (RFC 6455 §4.1);
    /// the returned future says whether the server upgraded.
    private func configure(_ channel: any Channel, address: Endpoint, token: String) throws -> EventLoopFuture<Bool> {
        let pipeline = channel.pipeline.syncOperations
        if address.tls {
            try pipeline.addHandler(NIOSSLClientHandler(context: Self.tlsContext.get(), serverHostname: address.serverName))
        }
        let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(maxFrameSize: RealtimeFrameHandler.maxMessageSize) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                let handler = RealtimeFrameHandler(receive: { self.deliver($0) }, closed: { self.fail() })
                try channel.pipeline.syncOperations.addHandler(handler)
                self.opened(channel)
                return true
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: address.hostHeader)
        headers.add(name: "Authorization", value: "Bearer \(token)")
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: address.target, headers: headers)
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: .init(
            upgradeRequestHead: request, upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) }))
        // The server's hello may come in the same read as its 101: keep what follows the response.
        configuration.leftOverBytesStrategy = .forwardBytes
        return try pipeline.configureUpgradableHTTPClientPipeline(configuration: configuration)
    }
}
