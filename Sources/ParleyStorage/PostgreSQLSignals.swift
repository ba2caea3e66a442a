import Logging
import NIOCore
import PostgresNIO

/// Wake-ups between nodes sharing one PostgreSQL: `pg_notify` sent on a connection of its own,
/// never inside a data transaction (a transaction that notifies takes a cluster-wide lock at
/// commit, see BUILDING.md), and `LISTEN` on another. Only wake-ups travel here: what they
/// announce is in the tables, which listeners read.
actor PostgreSQLSignals {
    private let url: PostgreSQLURL
    private let logger: Logger
    private var sender: PostgresConnection?
    private var listener: PostgresConnection?
    private var listenerConnecting: Task<PostgresConnection, any Error>?
    /// What is listened to: LISTENed again on a new connection when the listening one drops
    /// (the server restarted, a proxy cut it), after which `reconnected` lets each listener catch up.
    private var subscriptions: [(channel: String, handler: @Sendable (String) -> Void, reconnected: (@Sendable () -> Void)?)] = []
    private var closed = false

    init(url: PostgreSQLURL, logger: Logger) {
        self.url = url
        self.logger = logger
    }

    /// Nothing once closed: a wake-up after shutdown has nobody to wake.
    /// `payloads` in one statement, so in one transaction: delivered together, in their order.
    func notify(_ channel: String, payloads: [String]) async throws {
        guard !closed else { return }
        if sender == nil || sender?.isClosed == true {
            let connection = try await connect(id: 1_000_001)
            // Another notify may have connected while this one waited (the actor is re-entered at
            // every await): keep one, close the other (an unclosed connection must not be dropped).
            if let sender, !sender.isClosed {
                try? await connection.close()
            } else {
                sender = connection
            }
        }
        let query = PostgresQuery(unsafeSQL: "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", binds: {
            var binds = PostgresBindings(capacity: 2)
            binds.append(channel)
            binds.append(payloads)
            return binds
        }())
        try await sender!.query(query, logger: logger)
    }

    func listen(_ channel: String, _ handler: @escaping @Sendable (String) -> Void,
                reconnected: (@Sendable () -> Void)? = nil) async throws {
        guard !closed else { throw StorageError.closed }
        // Several listeners (events, node signals) start at once and share one connection: the
        // first call makes it and the others wait for that one (the actor is re-entered at the
        // await; a second connection would replace the first, which must never be dropped open).
        if listener == nil || listener?.isClosed == true {
            if listenerConnecting == nil {
                listenerConnecting = Task { try await connect(id: 1_000_002) }
            }
            let task = listenerConnecting!
            do {
                let made = try await task.value
                if listener !== made {
                    if let old = listener, !old.isClosed { try? await old.close() }
                    listener = made
                    watch(made)
                }
                listenerConnecting = nil
            } catch {
                listenerConnecting = nil
                throw error
            }
        }
        guard let connection = listener else { throw StorageError.closed }
        subscriptions.append((channel, handler, reconnected))
        try await subscribe(connection, channel, handler)
    }

    private func subscribe(_ connection: PostgresConnection, _ channel: String, _ handler: @escaping @Sendable (String) -> Void) async throws {
        connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try await connection.query(PostgresQuery(unsafeSQL: #"LISTEN "\#(channel)""#), logger: logger)
    }

    /// When `connection` closes while the signals are open, listens again on a new one.
    private func watch(_ connection: PostgresConnection) {
        let closing = connection.closeFuture
        Task { [weak self] in
            try? await closing.get()
            await self?.listenerLost(connection)
        }
    }

    /// Reconnects (0.25 s, doubling to 5 s between tries), LISTENs every channel again, then tells
    /// each listener, which reads what it may have missed meanwhile.
    private func listenerLost(_ lost: PostgresConnection) async {
        guard !closed, listener === lost else { return }
        listener = nil
        logger.warning("the listening connection closed; listening again")
        var pause = Duration.milliseconds(250)
        while !closed {
            do {
                let connection = try await connect(id: 1_000_002)
                for subscription in subscriptions { try await subscribe(connection, subscription.channel, subscription.handler) }
                listener = connection
                watch(connection)
                for subscription in subscriptions { subscription.reconnected?() }
                logger.notice("listening again", metadata: ["channels": "\(subscriptions.map(\.channel))"])
                return
            } catch {
                logger.warning("listening again failed; retrying", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(for: pause)
                pause = min(pause * 2, .seconds(5))
            }
        }
    }

    /// A new connection; closed again at once if `close` ran while it was being made.
    private func connect(id: Int) async throws -> PostgresConnection {
        let connection = try await PostgresConnection.connect(configuration: url.connection, id: id, logger: logger)
        if closed {
            try? await connection.close()
            throw StorageError.closed
        }
        return connection
    }

    func close() async {
        closed = true
        try? await sender?.close()
        try? await listener?.close()
        sender = nil
        listener = nil
    }
}
