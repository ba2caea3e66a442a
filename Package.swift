// swift-tools-version: 6.1
import PackageDescription

// Modules in the order data flows (see ../shared/STYLE.md):
//   ParleyCore → wire codecs (ParleySTUN, ParleyRTP, ParleySDP) and C wrappers (ParleySRTP, ParleyDTLS)
//   → ParleyStorage, ParleyMail, ParleyFiles
//   → domain services (ParleyAccounts, …) → ParleyHTTP → ParleyApp → `parley`.
let package = Package(
    name: "parley",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "parley", targets: ["parley"]),
        .executable(name: "parley-loadtest", targets: ["parley-loadtest"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OTLP over HTTP only: the gRPC exporter would bring grpc-swift into every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Shared vocabulary: typed ids, the error every edge turns into `{"error":{code,message}}`, clocks.
        .target(name: "ParleyCore", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),

        // The realtime protocol: every event in one catalogue, every command decoded once, one encoder;
        // and the wire values (messages, calls) REST and realtime share.
        .target(name: "ParleyProtocol", dependencies: ["ParleyCore"]),

        // Wire codecs: pure values, no I/O.
        .target(name: "ParleySTUN", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "ParleyRTP"),
        .target(name: "ParleySDP"),

        // C libraries, and the shim for what Swift cannot import.
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CParleyShim", dependencies: ["COpenSSL", "CSRTP"]),
        // Media security: SRTP sessions and the DTLS-SRTP handshake.
        .target(name: "ParleySRTP", dependencies: ["CSRTP", "CParleyShim"]),
        .target(name: "ParleyDTLS", dependencies: ["ParleySRTP", "COpenSSL", "CParleyShim"]),

        // Media codecs for the load-test harness and the Swift media client.
        .systemLibrary(name: "COpus", pkgConfig: "opus", providers: [.apt(["libopus-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .target(name: "CParleyCodecShim", dependencies: ["COpus", "CVPX"]),
        .target(name: "ParleyCodecs", dependencies: ["COpus", "CVPX", "CParleyCodecShim"]),
        // A WebRTC client of our own (ICE controlling, DTLS client, SRTP, real Opus and VP8): the
        // load test's media client, and the relay tests' exact-packet peer.
        .target(name: "ParleyMediaClient", dependencies: [
            "ParleySTUN", "ParleyRTP", "ParleySDP", "ParleySRTP", "ParleyDTLS", "ParleyCodecs", "CParleyUDP",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),

        // recvmmsg/sendmmsg for the relay's media socket (Glibc hides them behind _GNU_SOURCE).
        .target(name: "CParleyUDP"),
        // The media relay: one UDP port, ICE-lite, DTLS-SRTP, SRTP forwarding (SFU for 1:1 calls).
        .target(name: "ParleyRelay", dependencies: [
            "ParleyCore", "ParleySTUN", "ParleyRTP", "ParleySDP", "ParleySRTP", "ParleyDTLS", "CParleyUDP",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Infrastructure below the domain: the system's SQLite (3.34+ for FTS5 trigrams), driven directly,
        // or PostgreSQL through PostgresNIO (`database.url`), behind the same transaction handles.
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // What Parley puts into SQLite itself: a wrapper around its page cache (PageCache.c) and a
        // VFS that gathers a transaction's WAL writes into one (WALWrites.c).
        .target(name: "CParleySQLite", dependencies: ["CSQLite3"]),
        .target(name: "ParleyStorage", dependencies: [
            "ParleyCore", "ParleyProtocol", "CSQLite3", "CParleySQLite",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "ParleyMail", dependencies: [
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Text messages (sign-in codes): an outbox folder by default, an HTTP SMS provider by configuration.
        .target(name: "ParleySMS", dependencies: [
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "ParleyFiles", dependencies: [
            "ParleyCore",
            .product(name: "Crypto", package: "swift-crypto"),
        ]),

        // Domain services: no Hummingbird here.
        .target(name: "ParleyAccounts", dependencies: [
            "ParleyCore", "ParleyStorage", "ParleyMail", "ParleySMS", "ParleyFiles",
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .target(name: "ParleyFriends", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage",
            .product(name: "Logging", package: "swift-log"),
        ]),

        .target(name: "ParleyChat", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyFiles", "ParleyFriends",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .target(name: "ParleyStories", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyChat", "ParleyFriends",
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Quotes (seed 003): said by one, heard by others, seen only by those who were there.
        .target(name: "ParleyQuotes", dependencies: [
            "ParleyCore", "ParleyStorage",
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Calls: the signalling state machine over the relay, and the echo test call.
        .target(name: "ParleyCalls", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyRelay", "ParleyFriends", "ParleyChat",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Crypto", package: "swift-crypto"),   // TURN credentials (HMAC-SHA1)
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Push to devices whose app is closed: the APNs provider (HTTP/2, token auth) and who gets what.
        .target(name: "ParleyPush", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyRealtime",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Per-user numbered events: stored, then delivered to live connections.
        .target(name: "ParleyRealtime", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Who is online, last seen, and profile changes told live to friends and chat members.
        .target(name: "ParleyPresence", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyRealtime", "ParleyAccounts", "ParleyFriends", "ParleyChat",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // multipart/form-data read as it arrives (multipart-kit's streaming parser), as events.
        .target(name: "ParleyMultipart", dependencies: [
            .product(name: "MultipartKit", package: "multipart-kit"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),

        // Edges.
        .target(name: "ParleyHTTP", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyAccounts", "ParleyFriends", "ParleyChat", "ParleyStories", "ParleyQuotes", "ParleyCalls", "ParleyFiles", "ParleyPush",
            "ParleyMultipart", "ParleyPresence",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "_NIOFileSystem", package: "swift-nio"),
        ]),

        .target(name: "ParleyGateway", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyRealtime", "ParleyAccounts", "ParleyChat", "ParleyCalls", "ParleyPresence",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),

        // Wiring: configuration, services, lifecycle.
        .target(name: "ParleyApp", dependencies: [
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyMail", "ParleySMS", "ParleyFiles", "ParleyAccounts", "ParleyFriends", "ParleyChat", "ParleyStories", "ParleyQuotes", "ParleyCalls", "ParleyRelay", "ParleyRealtime", "ParleyHTTP", "ParleyGateway", "ParleyPush", "ParleyPresence",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // Linked with mimalloc (Debian's libmimalloc-dev), which takes over malloc and free for
        // the whole process: see docs/deploying.md, Memory.
        .executableTarget(name: "parley", dependencies: [
            "ParleyApp",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], linkerSettings: [.linkedLibrary("mimalloc")]),
        // The load-test harness: calls with real Opus and VP8 (ParleyMediaClient) and chat, driven
        // through a running Parley's gateway, relay and admin routes.
        .target(name: "ParleyLoadTest", dependencies: [
            "ParleyCore", "ParleyMediaClient",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ], path: "loadtest/Sources/ParleyLoadTest"),
        .executableTarget(name: "parley-loadtest", dependencies: [
            "ParleyLoadTest",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "loadtest/Sources/parley-loadtest"),
        .testTarget(name: "ParleyLoadTestTests", dependencies: [
            "ParleyLoadTest", "ParleyMediaClient",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ], path: "loadtest/Tests/ParleyLoadTestTests"),

        .testTarget(name: "ParleySTUNTests", dependencies: ["ParleySTUN", "ParleyTestSupport"]),
        .testTarget(name: "ParleyRTPTests", dependencies: ["ParleyRTP", "ParleyTestSupport"]),
        .testTarget(name: "ParleySRTPTests", dependencies: ["ParleySRTP"]),
        .testTarget(name: "ParleyDTLSTests", dependencies: ["ParleyDTLS", "ParleySRTP", "COpenSSL", "CParleyShim", "ParleyTestSupport"]),
        .testTarget(name: "ParleyRelayTests", dependencies: [
            "ParleyRelay", "ParleyTestSupport", "ParleySTUN", "ParleyRTP", "ParleySDP", "ParleySRTP", "ParleyDTLS",
            "ParleyMediaClient", "ParleyCodecs",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ParleySDPTests", dependencies: ["ParleySDP"], exclude: ["Fixtures"]),
        // Real peers for live tests (aiosmtpd, aiortc, …) started from the test venv, and the test PostgreSQL.
        .target(name: "ParleyTestSupport", dependencies: [
            "ParleyStorage",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ], path: "Tests/ParleyTestSupport"),
        .testTarget(name: "ParleyFilesTests", dependencies: ["ParleyFiles", "ParleyTestSupport"]),
        .testTarget(name: "ParleyCodecsTests", dependencies: ["ParleyCodecs"]),
        .testTarget(name: "ParleyCallsTests", dependencies: [
            "ParleyCalls", "ParleyProtocol", "ParleyRelay", "ParleyStorage",
            .product(name: "MetricsTestKit", package: "swift-metrics"),
        ]),
        .testTarget(name: "ParleyProtocolTests", dependencies: ["ParleyCore", "ParleyProtocol", "ParleyTestSupport"]),
        .testTarget(name: "ParleyPushTests", dependencies: [
            "ParleyPush", "ParleyCore", "ParleyProtocol", "ParleyTestSupport",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        .testTarget(name: "ParleyMailTests", dependencies: ["ParleyMail", "ParleyTestSupport"]),
        .testTarget(name: "ParleySMSTests", dependencies: ["ParleySMS", "ParleyTestSupport"]),
        .testTarget(name: "ParleyAccountsTests", dependencies: [
            "ParleyAccounts", "ParleyStorage",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ParleyStorageTests", dependencies: [
            "ParleyStorage", "ParleyTestSupport", "CParleySQLite",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "ParleyHTTPTests", dependencies: [
            "ParleyApp", "ParleyHTTP", "ParleyMail", "ParleySMS", "ParleyFriends", "ParleyMediaClient", "ParleyTestSupport",
            "ParleyCore", "ParleyProtocol", "ParleyStorage", "ParleyRealtime", "ParleySTUN", "ParleyMultipart",
            .product(name: "Crypto", package: "swift-crypto"),   // MD5 of TURN's long-term key in the coturn tests
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
    ]
)

// libFuzzer targets (fuzz/): one program, `parley-fuzz`, over the wire parsers. Declared only for
// scripts/fuzz.sh, which sets PARLEY_FUZZ=1 and builds it with -sanitize=fuzzer,address into
// .build-fuzz, so the ordinary build neither sees nor builds it.
if Context.environment["PARLEY_FUZZ"] == "1" {
    package.targets += [
        .target(name: "ParleyFuzzTargets", dependencies: [
            "ParleySTUN", "ParleyRTP", "ParleySDP", "ParleyDTLS", "ParleyMultipart", "ParleyProtocol", "ParleyFiles",
            .product(name: "NIOCore", package: "swift-nio"),
        ], path: "fuzz/Sources/ParleyFuzzTargets"),
        // C, so the program is linked as it is: libFuzzer's own main calls the Swift targets.
        .executableTarget(name: "parley-fuzz", dependencies: ["ParleyFuzzTargets"], path: "fuzz/Sources/parley-fuzz"),
    ]
    package.products += [.executable(name: "parley-fuzz", targets: ["parley-fuzz"])]
}
