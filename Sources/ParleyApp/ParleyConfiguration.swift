import Configuration
import Foundation

/// Everything Parley reads at start: config/parley.yaml, overridden by environment variables
/// (`HTTP_PORT=9090`, `MAIL_TRANSPORT=smtp`, …), with embedded defaults for anything unset.
public struct ParleyConfiguration: Sendable {
    public var httpHost = "127.0.0.1"
    public var httpPort = 8080
    /// PEM files: with both set, Parley serves HTTPS and WSS itself.
    public var tlsCertificate = ""
    public var tlsKey = ""
    /// How long a connection may take to bring its first request, sit idle between requests or
    /// stall in one before it is closed; 0 or less: never. Above the 60 s after which load
    /// balancers (nginx's upstream keepalive, AWS's) drop an idle connection themselves, so that
    /// they, not Parley, close it first.
    public var httpIdleTimeoutSeconds = 75.0
    public var dataDirectory = "./data"
    /// Where uploads are kept: `files/` (attachments, stories) and `avatars/` under it. Empty: the
    /// data folder. Nodes sharing PostgreSQL point it at one folder they all reach.
    public var filesDirectory = ""
    /// Empty: SQLite in the data folder. Else PostgreSQL: `postgres://user:password@host:port/database?sslmode=…&pool=…`.
    public var databaseURL = ""
    /// SQLite's writer thread's nice value: ahead of the other threads when the cores are all
    /// busy (every write waits for it). Negative needs root or CAP_SYS_NICE; 0 leaves it alone.
    public var databaseWriterNice = -10
    public var publicBaseURL = ""
    public var jwtSecret = ""
    public var bcryptCost = 12
    public var accessTokenSeconds = 900
    public var refreshTokenDays = 60
    public var passwordResetLink = "parley://password-reset?token={token}"
    /// Wrong passwords per account from one address, and from all addresses together, per window.
    public var loginFailuresPerAccountAndAddress = 5
    public var loginFailuresPerAccount = 100
    public var loginAttemptsPerAddress = 30
    public var registrationsPerAddressPerHour = 20
    public var registrationsPerHour = 1000
    /// Proxies (addresses or CIDR blocks) whose `X-Forwarded-For` names the client.
    public var trustedProxies: [String] = []
    /// Per-user write limits.
    public var messagesPerMinute = 600
    public var friendRequestsPerHour = 100
    /// First messages to people who are not friends (message requests) per user and hour.
    public var messageRequestsPerHour = 20
    public var callInvitesPerMinute = 30
    public var iceRestartsPerMinute = 20
    /// Stories one user may have live at once (each lives a day).
    public var storiesPerDay = 100
    /// Group creations, renames, new pictures, additions and removals per user and hour, together.
    public var groupChangesPerHour = 200
    /// What one user may ask of a node, every authenticated request and realtime command
    /// together (`RequestBudget`): this many a second on average (0: no budget)…
    public var requestsPerSecond: Double = 50
    /// …and up to this many at once.
    public var requestBurst = 500
    /// Days after which an account whose address was never verified is deleted.
    public var unverifiedAccountDays = 7
    public var loginWindowSeconds = 900
    public var maxAvatarBytes = 5 * 1024 * 1024
    public var maxImageBytes = 10 << 20
    public var maxVideoBytes = 100 << 20
    public var maxAudioBytes = 20 << 20
    /// Bytes of attachments one user may have stored, all kinds together.
    public var attachmentQuotaBytes = 1 << 30
    /// Uploads one user may have under way at once.
    public var concurrentUploadsPerUser = 4
    /// How long per-user events are kept for `sync`.
    public var eventRetentionDays = 7
    /// Frames a realtime connection may have waiting before it counts as too slow and is closed.
    public var mailboxCapacity = 1024
    /// Bytes a realtime connection may have waiting before it counts as too slow and is closed.
    public var mailboxBytes = 4 << 20
    /// Realtime sockets one user may hold open, all devices together.
    public var maxConnectionsPerUser = 20
    /// The longest an open realtime socket goes without asking the store again whether its
    /// session is open (each asks after a random half to all of it; a session that ends closes
    /// its sockets at once, and this is the backstop).
    public var sessionRecheckSeconds = 10.0
    /// How often devices should `ping` an idle realtime socket (the hello's `pingIntervalSeconds`).
    public var clientPingSeconds = 25
    /// One `typing` per person and dialog is passed on this often; more are answered and dropped.
    public var typingIntervalSeconds = 2.0
    /// The media relay's UDP socket (`::` is dual-stack: IPv4 and IPv6), and the addresses put
    /// in SDP answers: `mediaAnnouncedAddress` first, then `mediaAnnouncedAddresses`.
    public var mediaHost = "::"
    public var mediaPort = 50000
    public var mediaAnnouncedAddress = "127.0.0.1"
    public var mediaAnnouncedAddresses: [String] = []
    /// A leg with no valid STUN for this long is dead (RFC 7675 consent), and its call `connection_lost`.
    public var mediaConsentSeconds = 30
    /// Relay legs this node holds at most (two per call, one per echo test): `relay_full` past it.
    public var mediaMaxLegs = 4000
    /// Distinct SSRCs one leg's client may send RTP with; RTP with a further new one is dropped.
    public var mediaMaxSSRCsPerLeg = 8
    /// The relay's TCP port for ICE over TCP (RFC 6544). Nil: the same number as `mediaPort`;
    /// 0: no TCP.
    public var mediaTCPPort: Int?
    /// Whether answers carry the relay's UDP candidates; false only in tests of TCP alone.
    public var mediaUDPCandidates = true
    /// An echo test call ends by itself after this long.
    public var echoCallSeconds = 60
    /// An unanswered call ends `no_answer` after this long.
    public var ringSeconds = 45
    /// How long a call waits for a device that dropped off the realtime socket.
    public var reconnectGraceSeconds = 20
    /// Bearer token of `/admin/…` and `/metrics`. Empty: generated once into `<data>/admin-token`.
    public var adminToken = ""
    /// `host:port` of a second listener serving `/metrics` alone, without the admin token, for a
    /// private scrape network. Empty: none (`/metrics` on the main port, behind the admin token).
    public var metricsListen = ""
    /// Where traces go over OTLP/HTTP (protobuf), the whole URL, e.g.
    /// `http://collector:4318/v1/traces`. Empty: tracing off.
    public var tracingOTLPEndpoint = ""
    /// The `service.name` spans carry.
    public var tracingServiceName = "parley"
    public var mail = Mail()
    public var sms = SMS()
    /// Sign-up by phone: a code's lifetime, wrong tries before it locks, codes per number and
    /// per client address per hour, and the country code of numbers written without one.
    public var phoneCodeSeconds = 600
    public var phoneCodeAttempts = 5
    /// How long the code mailed to a new e-mail address works.
    public var emailChangeCodeSeconds = 3600
    public var phoneCodesPerNumberPerHour = 5
    public var phoneCodesPerAddressPerHour = 20
    public var phoneCodesPerHour = 1000
    public var phoneDefaultCountryCode = ""
    /// The longest quote, in characters (what the app counts down from).
    public var quoteMaxLength = 280
    /// Search reads every quote of someone who may see at most this many, and the trigram index
    /// for anyone who may see more.
    public var quoteSearchScanLimit = 2000
    public var turn = TURN()
    public var push = Push()
    public var logLevel = "info"
    /// `text` (one readable line per event) or `json` (one JSON object per line, for a log shipper).
    public var logFormat = "text"
    /// The web client's files (index.html, app.css, js/…), served at `/` and `/web/…`; a relative
    /// path is taken from the working directory (the repository root under `make run`). Empty: no
    /// web client.
    public var webDirectory = "web"

    /// APNs (token-based auth with a `.p8` key). Off while `keyFile` is empty.
    public struct Push: Sendable {
        public var keyFile = ""
        public var keyID = ""
        public var teamID = ""
        /// The app's bundle id; VoIP pushes go to `<bundleID>.voip`.
        public var bundleID = ""
        /// `sandbox` or `production`: the default for devices that do not say (each device registers its own).
        public var environment = "production"
        /// Overrides Apple's host (tests point it at a stand-in).
        public var url = ""
        /// An extra CA to trust for `url` (tests).
        public var caFile = ""

        public init() {}

        public var isConfigured: Bool { !keyFile.isEmpty }
    }

    public struct Mail: Sendable {
        /// `outbox` (files in the data folder) or `smtp`.
        public var transport = "outbox"
        public var fromAddress = "no-reply@parley.localhost"
        public var fromName = "Parley"
        public var outboxDirectory = ""
        public var smtpHost = "127.0.0.1"
        public var smtpPort = 25
        /// `none`, `starttls-if-available`, `starttls`, `tls`.
        public var smtpTLS = "starttls-if-available"
        public var smtpUsername = ""
        public var smtpPassword = ""
        public var smtpCAFile = ""
        public var smtpVerifyCertificate = true

        public init() {}
    }

    /// Text messages (sign-in codes): `outbox` (files in the data folder) or `http` (an SMS
    /// provider speaking the Messages API of `HTTPSMSTransport`).
    public struct SMS: Sendable {
        public var transport = "outbox"
        public var outboxDirectory = ""
        public var httpURL = ""
        public var httpAccountID = ""
        public var httpAuthToken = ""
        public var httpFrom = ""

        public init() {}
    }

    /// TURN servers handed to devices (`GET /v1/calls/ice-servers`, the realtime `hello`), with
    /// credentials in coturn's `use-auth-secret` scheme. No URIs: no TURN.
    public struct TURN: Sendable {
        /// `turn:`/`turns:` URIs; from the environment as one comma-separated value.
        public var uris: [String] = []
        public var sharedSecret = ""
        public var ttlSeconds = 86_400

        public init() {}
    }

    public init() {}

    /// Reads the file (if present) under the environment.
    public static func load(file: String?, environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> ParleyConfiguration {
        var providers: [any ConfigProvider] = [EnvironmentVariablesProvider(environmentVariables: environment)]
        if let file, FileManager.default.fileExists(atPath: file) {
            providers.append(try await FileProvider<YAMLSnapshot>(filePath: .init(file)))
        }
        return ParleyConfiguration(reader: ConfigReader(providers: providers))
    }

    public init(reader config: ConfigReader) {
        let d = ParleyConfiguration()
        httpHost = config.string(forKey: "http.host", default: d.httpHost)
        httpPort = config.int(forKey: "http.port", default: d.httpPort)
        tlsCertificate = config.string(forKey: "http.tls.certificate", default: d.tlsCertificate)
        tlsKey = config.string(forKey: "http.tls.key", default: d.tlsKey)
        httpIdleTimeoutSeconds = config.double(forKey: "http.idleTimeoutSeconds", default: d.httpIdleTimeoutSeconds)
        dataDirectory = config.string(forKey: "data.directory", default: d.dataDirectory)
        filesDirectory = config.string(forKey: "files.directory", default: d.filesDirectory)
        databaseURL = config.string(forKey: "database.url", default: d.databaseURL)
        databaseWriterNice = config.int(forKey: "database.writerNice", default: d.databaseWriterNice)
        publicBaseURL = config.string(forKey: "http.publicBaseURL", default: d.publicBaseURL)
        webDirectory = config.string(forKey: "web.directory", default: d.webDirectory)
        jwtSecret = config.string(forKey: "auth.jwtSecret", isSecret: true, default: d.jwtSecret)
        bcryptCost = config.int(forKey: "auth.bcryptCost", default: d.bcryptCost)
        accessTokenSeconds = config.int(forKey: "auth.accessTokenSeconds", default: d.accessTokenSeconds)
        refreshTokenDays = config.int(forKey: "auth.refreshTokenDays", default: d.refreshTokenDays)
        passwordResetLink = config.string(forKey: "auth.passwordResetLink", default: d.passwordResetLink)
        loginFailuresPerAccountAndAddress = config.int(forKey: "auth.loginFailuresPerAccountAndAddress", default: d.loginFailuresPerAccountAndAddress)
        loginFailuresPerAccount = config.int(forKey: "auth.loginFailuresPerAccount", default: d.loginFailuresPerAccount)
        registrationsPerAddressPerHour = config.int(forKey: "auth.registrationsPerAddressPerHour", default: d.registrationsPerAddressPerHour)
        registrationsPerHour = config.int(forKey: "auth.registrationsPerHour", default: d.registrationsPerHour)
        trustedProxies = config.stringArray(forKey: "http.trustedProxies", default: d.trustedProxies).filter { !$0.isEmpty }
        messagesPerMinute = config.int(forKey: "limits.messagesPerMinute", default: d.messagesPerMinute)
        friendRequestsPerHour = config.int(forKey: "limits.friendRequestsPerHour", default: d.friendRequestsPerHour)
        messageRequestsPerHour = config.int(forKey: "limits.messageRequestsPerHour", default: d.messageRequestsPerHour)
        callInvitesPerMinute = config.int(forKey: "limits.callInvitesPerMinute", default: d.callInvitesPerMinute)
        iceRestartsPerMinute = config.int(forKey: "limits.iceRestartsPerMinute", default: d.iceRestartsPerMinute)
        storiesPerDay = config.int(forKey: "limits.storiesPerDay", default: d.storiesPerDay)
        groupChangesPerHour = config.int(forKey: "limits.groupChangesPerHour", default: d.groupChangesPerHour)
        requestsPerSecond = config.double(forKey: "limits.requestsPerSecond", default: d.requestsPerSecond)
        requestBurst = config.int(forKey: "limits.requestBurst", default: d.requestBurst)
        loginAttemptsPerAddress = config.int(forKey: "auth.loginAttemptsPerAddress", default: d.loginAttemptsPerAddress)
        unverifiedAccountDays = config.int(forKey: "auth.unverifiedAccountDays", default: d.unverifiedAccountDays)
        loginWindowSeconds = config.int(forKey: "auth.loginWindowSeconds", default: d.loginWindowSeconds)
        maxAvatarBytes = config.int(forKey: "uploads.maxAvatarBytes", default: d.maxAvatarBytes)
        maxImageBytes = config.int(forKey: "uploads.maxImageBytes", default: d.maxImageBytes)
        maxVideoBytes = config.int(forKey: "uploads.maxVideoBytes", default: d.maxVideoBytes)
        maxAudioBytes = config.int(forKey: "uploads.maxAudioBytes", default: d.maxAudioBytes)
        attachmentQuotaBytes = config.int(forKey: "uploads.attachmentQuotaBytes", default: d.attachmentQuotaBytes)
        concurrentUploadsPerUser = config.int(forKey: "uploads.concurrentUploadsPerUser", default: d.concurrentUploadsPerUser)
        eventRetentionDays = config.int(forKey: "realtime.eventRetentionDays", default: d.eventRetentionDays)
        mailboxCapacity = config.int(forKey: "realtime.mailboxCapacity", default: d.mailboxCapacity)
        mailboxBytes = config.int(forKey: "realtime.mailboxBytes", default: d.mailboxBytes)
        maxConnectionsPerUser = config.int(forKey: "realtime.maxConnectionsPerUser", default: d.maxConnectionsPerUser)
        sessionRecheckSeconds = config.double(forKey: "realtime.sessionRecheckSeconds", default: d.sessionRecheckSeconds)
        clientPingSeconds = config.int(forKey: "realtime.clientPingSeconds", default: d.clientPingSeconds)
        typingIntervalSeconds = config.double(forKey: "realtime.typingIntervalSeconds", default: d.typingIntervalSeconds)
        adminToken = config.string(forKey: "admin.token", isSecret: true, default: d.adminToken)
        logLevel = config.string(forKey: "log.level", default: d.logLevel)
        logFormat = config.string(forKey: "log.format", default: d.logFormat)
        metricsListen = config.string(forKey: "metrics.listen", default: d.metricsListen)
        tracingOTLPEndpoint = config.string(forKey: "tracing.otlpEndpoint", default: d.tracingOTLPEndpoint)
        tracingServiceName = config.string(forKey: "tracing.serviceName", default: d.tracingServiceName)
        mediaHost = config.string(forKey: "media.host", default: d.mediaHost)
        mediaPort = config.int(forKey: "media.port", default: d.mediaPort)
        mediaAnnouncedAddress = config.string(forKey: "media.announcedAddress", default: d.mediaAnnouncedAddress)
        mediaAnnouncedAddresses = config.stringArray(forKey: "media.announcedAddresses", default: d.mediaAnnouncedAddresses)
            .filter { !$0.isEmpty }
        echoCallSeconds = config.int(forKey: "calls.echoSeconds", default: d.echoCallSeconds)
        mediaConsentSeconds = config.int(forKey: "media.consentSeconds", default: d.mediaConsentSeconds)
        mediaMaxLegs = config.int(forKey: "media.maxLegs", default: d.mediaMaxLegs)
        mediaMaxSSRCsPerLeg = config.int(forKey: "media.maxSSRCsPerLeg", default: d.mediaMaxSSRCsPerLeg)
        mediaTCPPort = config.int(forKey: "media.tcpPort") ?? d.mediaTCPPort
        mediaUDPCandidates = config.bool(forKey: "media.udpCandidates", default: d.mediaUDPCandidates)
        ringSeconds = config.int(forKey: "calls.ringSeconds", default: d.ringSeconds)
        reconnectGraceSeconds = config.int(forKey: "calls.reconnectGraceSeconds", default: d.reconnectGraceSeconds)
        mail.transport = config.string(forKey: "mail.transport", default: d.mail.transport)
        mail.fromAddress = config.string(forKey: "mail.from.address", default: d.mail.fromAddress)
        mail.fromName = config.string(forKey: "mail.from.name", default: d.mail.fromName)
        mail.outboxDirectory = config.string(forKey: "mail.outbox.directory", default: d.mail.outboxDirectory)
        mail.smtpHost = config.string(forKey: "mail.smtp.host", default: d.mail.smtpHost)
        mail.smtpPort = config.int(forKey: "mail.smtp.port", default: d.mail.smtpPort)
        mail.smtpTLS = config.string(forKey: "mail.smtp.tls", default: d.mail.smtpTLS)
        mail.smtpUsername = config.string(forKey: "mail.smtp.username", default: d.mail.smtpUsername)
        mail.smtpPassword = config.string(forKey: "mail.smtp.password", isSecret: true, default: d.mail.smtpPassword)
        mail.smtpCAFile = config.string(forKey: "mail.smtp.caFile", default: d.mail.smtpCAFile)
        mail.smtpVerifyCertificate = config.bool(forKey: "mail.smtp.verifyCertificate", default: d.mail.smtpVerifyCertificate)
        sms.transport = config.string(forKey: "sms.transport", default: d.sms.transport)
        sms.outboxDirectory = config.string(forKey: "sms.outbox.directory", default: d.sms.outboxDirectory)
        sms.httpURL = config.string(forKey: "sms.http.url", default: d.sms.httpURL)
        sms.httpAccountID = config.string(forKey: "sms.http.accountId", default: d.sms.httpAccountID)
        sms.httpAuthToken = config.string(forKey: "sms.http.authToken", isSecret: true, default: d.sms.httpAuthToken)
        sms.httpFrom = config.string(forKey: "sms.http.from", default: d.sms.httpFrom)
        phoneCodeSeconds = config.int(forKey: "auth.phone.codeSeconds", default: d.phoneCodeSeconds)
        phoneCodeAttempts = config.int(forKey: "auth.phone.codeAttempts", default: d.phoneCodeAttempts)
        emailChangeCodeSeconds = config.int(forKey: "auth.emailChangeCodeSeconds", default: d.emailChangeCodeSeconds)
        phoneCodesPerNumberPerHour = config.int(forKey: "auth.phone.codesPerNumberPerHour", default: d.phoneCodesPerNumberPerHour)
        phoneCodesPerAddressPerHour = config.int(forKey: "auth.phone.codesPerAddressPerHour", default: d.phoneCodesPerAddressPerHour)
        phoneCodesPerHour = config.int(forKey: "auth.phone.codesPerHour", default: d.phoneCodesPerHour)
        phoneDefaultCountryCode = config.string(forKey: "auth.phone.defaultCountryCode", default: d.phoneDefaultCountryCode)
        quoteMaxLength = config.int(forKey: "quotes.maxLength", default: d.quoteMaxLength)
        quoteSearchScanLimit = config.int(forKey: "quotes.searchScanLimit", default: d.quoteSearchScanLimit)
        push.keyFile = config.string(forKey: "push.apns.keyFile", default: d.push.keyFile)
        push.keyID = config.string(forKey: "push.apns.keyId", default: d.push.keyID)
        push.teamID = config.string(forKey: "push.apns.teamId", default: d.push.teamID)
        push.bundleID = config.string(forKey: "push.apns.bundleId", default: d.push.bundleID)
        push.environment = config.string(forKey: "push.apns.environment", default: d.push.environment)
        push.url = config.string(forKey: "push.apns.url", default: d.push.url)
        push.caFile = config.string(forKey: "push.apns.caFile", default: d.push.caFile)
        turn.uris = config.stringArray(forKey: "turn.uris", default: d.turn.uris).filter { !$0.isEmpty }
        turn.sharedSecret = config.string(forKey: "turn.sharedSecret", isSecret: true, default: d.turn.sharedSecret)
        turn.ttlSeconds = config.int(forKey: "turn.ttlSeconds", default: d.turn.ttlSeconds)
    }

    /// The folder holding `files/` and `avatars/`: `files.directory`, else the data folder.
    public var effectiveFilesDirectory: String { filesDirectory.isEmpty ? dataDirectory : filesDirectory }

    /// `httpIdleTimeoutSeconds` as a duration; nil when off.
    public var httpIdleTimeout: Duration? {
        httpIdleTimeoutSeconds > 0 ? .milliseconds(Int64((httpIdleTimeoutSeconds * 1000).rounded(.up))) : nil
    }

    /// Whether Parley itself terminates TLS (`http.tls.certificate` and `http.tls.key`).
    public var servesTLS: Bool { !tlsCertificate.isEmpty || !tlsKey.isEmpty }

    /// The base URL links in mail point at.
    public var effectivePublicBaseURL: String {
        if !publicBaseURL.isEmpty { return publicBaseURL.hasSuffix("/") ? String(publicBaseURL.dropLast()) : publicBaseURL }
        let host = httpHost == "0.0.0.0" || httpHost == "::" ? "127.0.0.1" : httpHost
        return "\(servesTLS ? "https" : "http")://\(host):\(httpPort)"
    }
}

extension ParleyConfiguration {
    /// The database is PostgreSQL, which several nodes may share: what each node would otherwise
    /// make up for itself (the token key, the admin token) must be configured, alike on all.
    public var sharesDatabase: Bool { !databaseURL.isEmpty }
}
