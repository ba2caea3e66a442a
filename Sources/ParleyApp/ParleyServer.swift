import Foundation
import Hummingbird
import Logging
import ParleyAccounts
import ParleyCalls
import ParleyChat
import ParleyCore
import ParleyFiles
import ParleyFriends
import ParleyGateway
import ParleyRealtime
import ParleyRelay
import ParleyHTTP
import ParleyMail
import ParleyPresence
import ParleyPush
import ParleyQuotes
import ParleySMS
import ParleyStorage
import ParleyStories
import NIOCore
import NIOSSL
import ServiceLifecycle

/// Wires configuration into services and services into the HTTP edge.
public enum ParleyServer {
    /// The assembled parts, for `parley` to run and for tests to reach into.
    public struct Parts {
        public let database: Database
        public let accounts: AccountService
        public let friends: FriendService
        public let chat: ChatService
        public let stories: StoryService
        public let quotes: QuoteService
        public let relay: MediaRelay
        public let calls: CallService
        public let events: EventLog
        public let gateway: RealtimeGateway
        public let router: Router<ParleyRequestContext>
        public let mailTransport: any MailTransport
        public let smsTransport: any SMSTransport
        /// Nil when APNs is not configured.
        public let push: PushDispatcher?
        public let pushStore: PushStore
        /// HTTPS and WSS, when configured.
        public let tls: TLSConfiguration?
        /// What `/admin/status` and `/metrics` read, and the metrics registry.
        public let operations: Operations
        /// The shared rate counts' pruning, on PostgreSQL (one node counts in memory).
        public let rateEvents: RateEventPruner?
    }

    /// Every module's schema steps, in the order a server applies them (and `migrate-data` too).
    public static let migrations: [Migration] = AccountMigrations.all + FriendMigrations.all + EventMigrations.all
        + ChatMigrations.all + StoryMigrations.all + QuoteMigrations.all + CallMigrations.all + PushMigrations.all

    public static func assemble(
        _ config: ParleyConfiguration, clock: any WallClock = SystemWallClock(), logger: Logger
    ) async throws -> Parts {
        // Checked before anything opens: TURN URIs without a secret would hand out refused credentials.
        let iceServers = try ICEServerIssuer(
            settings: TURNSettings(uris: config.turn.uris, sharedSecret: config.turn.sharedSecret, ttlSeconds: config.turn.ttlSeconds),
            clock: clock)
        let dataDirectory = config.dataDirectory
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        // One registry per server: every layer records through it, `/metrics` writes it out.
        let metrics = MetricsRegistry()
        // Nodes sharing PostgreSQL are given their secrets: checked before anything is opened.
        if config.sharesDatabase, config.jwtSecret.isEmpty {
            _ = try SecretFile.load(dataDirectory + "/jwt-secret", shared: true, setting: "auth.jwtSecret (AUTH_JWT_SECRET)")
        }
        if config.sharesDatabase, config.adminToken.isEmpty {
            _ = try SecretFile.load(dataDirectory + "/" + AdminToken.fileName, shared: true, setting: "admin.token (ADMIN_TOKEN)")
        }
        // SQLite in the data folder unless database.url names a PostgreSQL that every node shares.
        let database = config.databaseURL.isEmpty
            ? try await Database.openSQLite(path: dataDirectory + "/parley.sqlite", writerNice: config.databaseWriterNice, logger: logger)
            : try await Database.openPostgreSQL(url: PostgreSQLURL(config.databaseURL), logger: logger)
        let migrator = Migrator(database: database, logger: logger)
        let migrations = Self.migrations
        try await migrator.run(migrations, now: clock.now().storageMillis)

        let mail = CountingMailTransport(try MailSetup.transport(config, logger: logger), factory: metrics)
        let sms = try SMSSetup.transport(config, logger: logger)
        let publicBaseURL = config.effectivePublicBaseURL
        var settings = AccountSettings(
            publicBaseURL: publicBaseURL,
            passwordResetLink: config.passwordResetLink,
            bcryptCost: UInt8(clamping: min(max(config.bcryptCost, 4), 31)),
            accessTokenLifetime: TimeInterval(config.accessTokenSeconds),
            refreshTokenLifetime: TimeInterval(config.refreshTokenDays) * 86_400,
            maxAvatarBytes: config.maxAvatarBytes,
            loginFailuresPerAccountAndAddress: config.loginFailuresPerAccountAndAddress,
            loginFailuresPerAccount: config.loginFailuresPerAccount,
            loginAttemptsPerAddress: config.loginAttemptsPerAddress,
            loginWindow: TimeInterval(config.loginWindowSeconds))
        // The web client, when served here, resets passwords on its own screen: the mail links it too.
        if servesWebClient(config) { settings.browserPasswordResetLink = publicBaseURL + "/#/reset?token={token}" }
        settings.unverifiedAccountLifetime = TimeInterval(max(config.unverifiedAccountDays, 1)) * 86_400
        settings.registrationsPerAddressPerHour = max(config.registrationsPerAddressPerHour, 1)
        settings.registrationsPerHour = max(config.registrationsPerHour, 1)
        settings.phoneCodeLifetime = TimeInterval(max(config.phoneCodeSeconds, 30))
        settings.phoneCodeAttempts = max(config.phoneCodeAttempts, 1)
        settings.emailChangeCodeLifetime = TimeInterval(max(config.emailChangeCodeSeconds, 60))
        settings.phoneCodesPerNumberPerHour = max(config.phoneCodesPerNumberPerHour, 1)
        settings.phoneCodesPerAddressPerHour = max(config.phoneCodesPerAddressPerHour, 1)
        settings.phoneCodesPerHour = max(config.phoneCodesPerHour, 1)
        settings.defaultCountryCode = config.phoneDefaultCountryCode.isEmpty ? nil : config.phoneDefaultCountryCode
        let secret = try config.jwtSecret.isEmpty
            ? SecretFile.load(dataDirectory + "/jwt-secret", shared: config.sharesDatabase, setting: "auth.jwtSecret (AUTH_JWT_SECRET)")
            : config.jwtSecret
        let tokens = await AccessTokens(secret: secret, lifetime: settings.accessTokenLifetime, clock: clock)
        // Several nodes on one database count the limits together (login and sign-up attempts,
        // friend and message requests, call invites, ICE restarts); messages per minute stay in
        // each node's memory, off the send path's writes.
        let counters: RateCounters = { name, limit, window -> any RateCounter in
            if database.kind == .postgresql { return SQLRateCounter(database: database, name: name, limit: limit, window: window) }
            return RateLimiter(limit: limit, window: window)
        }
        let accounts = AccountService(
            store: SQLAccountStore(database: database), files: try FileStore(root: config.effectiveFilesDirectory + "/avatars"),
            mail: mail, sms: sms, tokens: tokens, clock: clock, settings: settings, logger: logger, counters: counters)
        // The longest window any shared counter reads (the hourly ones, or a longer login window).
        let rateEvents = database.kind == .postgresql
            ? RateEventPruner(database: database, clock: clock, keep: max(3600, TimeInterval(config.loginWindowSeconds))) : nil

        // On PostgreSQL every node delivers every node's events to its own sockets (LISTEN/NOTIFY).
        let hub = EventHub()
        let sharedFanout = database.kind == .postgresql ? SharedEventFanout(hub: hub, database: database, logger: logger) : nil
        let sharedBus = database.kind == .postgresql ? SharedNodeBus(hub: hub, database: database, logger: logger) : nil
        let events = EventLog(database: database, hub: hub, fanout: sharedFanout, nodes: sharedBus ?? LocalNodeBus(), clock: clock,
                              retention: TimeInterval(config.eventRetentionDays) * 86_400, logger: logger)
        if let sharedBus {
            Task {
                do { try await sharedBus.run() } catch {
                    logger.error("signals between nodes stopped", metadata: ["error": "\(error)"])
                }
            }
        }
        if let sharedFanout {
            Task { [events] in
                do {
                    try await sharedFanout.run { user, since, limit in try await events.events(of: user, since: since, limit: limit).events }
                } catch {
                    logger.error("cross-node event delivery stopped", metadata: ["error": "\(error)"])
                }
            }
        }
        events.timeMessageDelivery(factory: metrics)
        // A device whose session ends (logout, password reset) loses its realtime connections at once.
        accounts.onSessionsEnded { [events] ended in
            switch ended {
            case .one(let session): events.closeConnections(session: session)
            case .allOf(let user): events.closeConnections(user: user)
            }
        }
        let friends = FriendService(store: SQLFriendStore(database: database), events: events, clock: clock,
                                    requestsPerHour: config.friendRequestsPerHour, counters: counters, logger: logger)
        var chatSettings = ChatSettings(
            publicBaseURL: publicBaseURL, maxImageBytes: config.maxImageBytes, maxVideoBytes: config.maxVideoBytes,
            maxAudioBytes: config.maxAudioBytes)
        chatSettings.messagesPerMinute = config.messagesPerMinute
        chatSettings.messageRequestsPerHour = config.messageRequestsPerHour
        chatSettings.attachmentQuotaBytes = config.attachmentQuotaBytes
        chatSettings.concurrentUploadsPerUser = max(config.concurrentUploadsPerUser, 1)
        chatSettings.groupChangesPerHour = config.groupChangesPerHour
        let chat = ChatService(
            store: SQLChatStore(database: database, events: events, metrics: metrics, logger: logger), friends: friends, events: events,
            files: try FileStore(root: config.effectiveFilesDirectory + "/files"), clock: clock, settings: chatSettings, metrics: metrics,
            counters: counters, logger: logger)
        let stories = StoryService(store: SQLStoryStore(database: database), friends: friends, chat: chat, events: events,
                                   clock: clock, storiesPerDay: config.storiesPerDay, logger: logger)
        let quotes = QuoteService(store: SQLQuoteStore(database: database, scanLimit: config.quoteSearchScanLimit), clock: clock, maxLength: max(config.quoteMaxLength, 1), logger: logger)
        // Someone who joins with a number that quotes name sees them, and is shown by their name.
        accounts.onPhoneJoined { user, number in try await quotes.joined(user, phoneNumber: number) }
        let relay = try await MediaRelay.start(
            configuration: RelayConfiguration(host: config.mediaHost, port: config.mediaPort,
                                              announcedAddress: config.mediaAnnouncedAddress.isEmpty ? nil : config.mediaAnnouncedAddress,
                                              announcedAddresses: config.mediaAnnouncedAddresses,
                                              consentTimeout: .seconds(config.mediaConsentSeconds),
                                              maxLegs: max(config.mediaMaxLegs, 2), maxSSRCsPerLeg: max(config.mediaMaxSSRCsPerLeg, 2),
                                              tcpPort: config.mediaTCPPort,
                                              udpCandidates: config.mediaUDPCandidates),
            logger: logger, metrics: RelayMetrics(factory: metrics))
        let echo = EchoCalls(relay: relay, lifetime: .seconds(config.echoCallSeconds), logger: logger)
        // Several nodes: a call lives on the node it was placed on; the others reach it over the bus.
        let callNetwork = sharedBus.map { SharedCallNetwork(database: database, requests: $0, logger: logger) }
        let calls = CallService(
            legs: relay, permissions: friends, recorder: StoredCallRecorder(store: SQLCallStore(database: database), chat: chat),
            events: events, timers: SystemCallTimers(clock: clock),
            settings: .init(ringTimeout: .seconds(config.ringSeconds), reconnectGrace: .seconds(config.reconnectGraceSeconds)),
            invitesPerMinute: config.callInvitesPerMinute, restartsPerMinute: config.iceRestartsPerMinute,
            metrics: CallMetrics(factory: metrics), network: callNetwork ?? LocalCallNetwork(), counters: counters, logger: logger)
        if let sharedBus, let callNetwork {
            sharedBus.answer(CallRequest.topic) { body in
                guard let request = CallRequest.decode(body) else { return CallReply.failed(.badRequest("not a call request")).json }
                return await calls.serve(request).json
            }
            callNetwork.start(live: { await calls.liveCallIDs() }, abandoned: { await calls.abandoned($0) })
        }
        friends.onBlock { blocker, blocked in await calls.blocked(blocked, by: blocker) }
        friends.onBlock { blocker, blocked in await chat.blocked(blocked, by: blocker) }
        let presence = PresenceService(accounts: accounts, friends: friends, chat: chat, events: events, publicBaseURL: publicBaseURL,
                                       logger: logger)
        let budget = RequestBudget(perSecond: max(config.requestsPerSecond, 0), burst: config.requestBurst, metrics: metrics)
        let gateway = RealtimeGateway(accounts: accounts, events: events, chat: chat, calls: calls, iceServers: iceServers, presence: presence,
                                      settings: .init(mailboxCapacity: config.mailboxCapacity, mailboxBytes: max(config.mailboxBytes, 64 << 10),
                                                      maxConnectionsPerUser: max(config.maxConnectionsPerUser, 1),
                                                      sessionRecheckInterval: .milliseconds(Int64(max(config.sessionRecheckSeconds, 0) * 1000)),
                                                      clientPingSeconds: min(max(config.clientPingSeconds, 1), 300),
                                                      typingInterval: .milliseconds(Int64(max(config.typingIntervalSeconds, 0) * 1000))),
                                      budget: budget, metrics: metrics)
        var dependencies = HTTPDependencies(
            accounts: accounts, friends: friends, chat: chat, stories: stories, quotes: quotes, echo: echo, calls: calls, publicBaseURL: publicBaseURL,
            maxAvatarBytes: config.maxAvatarBytes, maxUploadBytes: chatSettings.largestUpload, health: { await database.ping() })
        dependencies.iceServers = iceServers
        dependencies.presence = presence
        dependencies.readiness = {
            async let database = database.ping()
            async let migrated = (try? await migrator.pending(migrations).isEmpty) ?? false
            async let relay = relay.isReceiving()
            return ["database": await database, "migrations": await migrated, "relay": await relay]
        }
        dependencies.trustedProxies = try TrustedProxies(config.trustedProxies)
        dependencies.realtimeAdmits = { gateway.acceptsAnotherConnection(of: $0) }
        dependencies.budget = budget
        dependencies.webClient = webClient(config, logger: logger)
        let pushStore = PushStore(database: database)
        dependencies.push = PushSetup(store: pushStore, bundleID: config.push.isConfigured ? config.push.bundleID : nil)
        // A device whose session ends gets no more pushes: its tokens go with it.
        accounts.onSessionsEnded { ended in
            Task {
                switch ended {
                case .one(let session): try? await pushStore.remove(session: session)
                case .allOf(let user): try? await pushStore.removeAll(of: user)
                }
            }
        }
        let push = try Self.push(config, store: pushStore, events: events, accounts: accounts, chat: chat, logger: logger)
        dependencies.operations = try operations(config, database: database, hub: events.hub, relay: relay, logger: logger)
        dependencies.operations.metrics = metrics
        dependencies.operations.calls = {
            let counts = await calls.counts()
            return CallStats(ringing: counts.ringing, active: counts.active, ended: UInt64(counts.ended))
        }
        if let push {
            dependencies.operations.push = { PushStats(enabled: true, push.stats() ?? APNsStats()) }
        }
        let router = ParleyRouter.build(dependencies)
        return Parts(
            database: database, accounts: accounts, friends: friends, chat: chat, stories: stories, quotes: quotes, relay: relay, calls: calls, events: events, gateway: gateway, router: router,
            mailTransport: mail, smsTransport: sms, push: push, pushStore: pushStore, tls: try ServerTLS.configuration(config),
            operations: dependencies.operations, rateEvents: rateEvents)
    }

    /// The runnable application: HTTP server plus the services that stop with it.
    public static func application(
        _ config: ParleyConfiguration, parts: Parts, logger: Logger, lifecycle: Bool = true
    ) -> some ApplicationProtocol {
        let stories = parts.stories, events = parts.events, relay = parts.relay, accounts = parts.accounts
        let rateEvents: [any Service] = parts.rateEvents.map { pruner in
            [PeriodicTask(name: "rate-events-prune", every: .seconds(60), logger: logger) { try await pruner.prune() }]
        } ?? []
        let scheme = parts.tls == nil ? "http" : "https"
        return Application(
            router: parts.router,
            server: ServerTLS.builder(parts.gateway.serverBuilder(idleTimeout: config.httpIdleTimeout), tls: parts.tls),
            configuration: .init(address: .hostname(config.httpHost, port: config.httpPort), serverName: "Parley"),
            // A service group stops its services in reverse order: the HTTP server (always last)
            // first, then these from the end.
            services: (lifecycle ? lifecycleServices(parts) : []) + [
                PeriodicTask(name: "story-sweep", every: .seconds(300), logger: logger) { _ = try await stories.sweep() },
                PeriodicTask(name: "event-prune", every: .seconds(3600), logger: logger) { try await events.prune() },
                PeriodicTask(name: "unverified-sweep", every: .seconds(3600), logger: logger) { try await accounts.sweepUnverified() },
                PeriodicTask(name: "token-sweep", every: .seconds(3600), logger: logger) { _ = try await accounts.sweepExpiredTokens() },
            ] + rateEvents,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? config.httpPort
                logger.notice("Parley listening", metadata: [
                    "http": "\(scheme)://\(config.httpHost):\(port)", "data": "\(config.dataDirectory)",
                    "mail": "\(config.mail.transport)", "media": "udp://\(config.mediaHost):\(relay.port)",
                ])
            },
            logger: logger)
    }
}

extension ParleyServer {
    /// The web client's folder (`web.directory`, relative paths from the working directory), when
    /// it holds an index.html; the outbox folder goes with it so the sign-up screen can say where
    /// the verification mail was written.
    static func webClient(_ config: ParleyConfiguration, logger: Logger) -> WebClient? {
        guard let directory = webClientDirectory(config) else { return nil }
        guard servesWebClient(config) else {
            logger.warning("no web client: web.directory has no index.html", metadata: ["directory": "\(directory)"])
            return nil
        }
        let outbox = config.mail.transport == "outbox"
            ? absolute(config.mail.outboxDirectory.isEmpty ? config.dataDirectory + "/outbox" : config.mail.outboxDirectory) : nil
        return WebClient(directory: directory, outboxDirectory: outbox)
    }

    /// Whether `web.directory` names a folder with an index.html, which is then served at `/`.
    static func servesWebClient(_ config: ParleyConfiguration) -> Bool {
        webClientDirectory(config).map { FileManager.default.fileExists(atPath: $0 + "/index.html") } ?? false
    }

    private static func webClientDirectory(_ config: ParleyConfiguration) -> String? {
        config.webDirectory.isEmpty ? nil : absolute(config.webDirectory)
    }

    private static func absolute(_ path: String) -> String {
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path)
            : URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(path)
        return url.standardizedFileURL.path
    }

    /// What stops in order when the server does, listed last-to-stop first (a service group stops
    /// in reverse): the calls end, then pushes drain, then the relay, then the database.
    static func lifecycleServices(_ parts: Parts) -> [any Service] {
        [DatabaseCloser(database: parts.database, nodes: parts.events.nodes as? SharedNodeBus, departures: parts.gateway.departures), RelayStopper(relay: parts.relay)]
            + (parts.push.map { [PushStopper(push: $0)] } ?? [])
            + [CallKeeper(calls: parts.calls, relay: parts.relay, hub: parts.events.hub)]
    }

    /// Runs the server until SIGTERM or SIGINT, then stops in the order written down here: every
    /// call ends `server_shutdown` (both sides told, the record written) while the sockets are
    /// still open; then the HTTP server closes its connections (WebSockets with a close frame);
    /// then pushes drain, the relay stops, and the database closes last.
    public static func run(_ config: ParleyConfiguration, parts: Parts, logger: Logger,
                           observability: [any Service] = []) async throws {
        OpenFileLimit.raise(logger: logger)
        let app = application(config, parts: parts, logger: logger, lifecycle: false)
        let scrape: [any Service] = try metricsApplication(config, parts: parts, logger: logger).map { [$0] } ?? []
        let services: [any Service] = [DatabaseCloser(database: parts.database, nodes: parts.events.nodes as? SharedNodeBus, departures: parts.gateway.departures), RelayStopper(relay: parts.relay)]
            + (parts.push.map { [PushStopper(push: $0)] } ?? [])
            + observability + scrape + [app, CallKeeper(calls: parts.calls, relay: parts.relay, hub: parts.events.hub)]
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

/// Runs `work` every `interval` until shutdown (sweeps, pruning); a failure is logged, not fatal.
struct PeriodicTask: Service {
    let name: String
    let every: Duration
    let logger: Logger
    let work: @Sendable () async throws -> Void

    func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await work() } catch { logger.error("periodic task failed", metadata: ["task": "\(name)", "error": "\(error)"]) }
                try await Task.sleep(for: every)   // throws when cancelled: the loop ends
            }
        }
    }
}


extension ParleyServer {
    /// The listener of `metrics.listen` (`host:port`): `/metrics` without the admin token, for a
    /// private scrape network. Nil when not configured.
    public static func metricsApplication(
        _ config: ParleyConfiguration, parts: Parts, logger: Logger
    ) throws -> (some ApplicationProtocol)? {
        guard !config.metricsListen.isEmpty else { return nil as Application<RouterResponder<ParleyRequestContext>>? }
        guard let colon = config.metricsListen.lastIndex(of: ":"), let port = Int(config.metricsListen[config.metricsListen.index(after: colon)...]),
              (0...65535).contains(port), colon > config.metricsListen.startIndex
        else { throw ParleyError(.internalFailure, code: "invalid_config", "metrics.listen is host:port, e.g. 10.0.0.5:9464") }
        let host = String(config.metricsListen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return Application(
            router: ParleyRouter.metricsOnly(parts.operations),
            server: .http1(configuration: .init(idleTimeout: config.httpIdleTimeout.map(TimeAmount.init))),
            configuration: .init(address: .hostname(host, port: port), serverName: "Parley"),
            onServerRunning: { channel in
                logger.notice("metrics listening", metadata: ["http": "http://\(config.metricsListen)/metrics",
                                                             "port": "\(channel.localAddress?.port ?? port)"])
            },
            logger: logger)
    }
}
