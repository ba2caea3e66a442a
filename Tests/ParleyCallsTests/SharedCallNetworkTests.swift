import Foundation
import Logging
import ParleyCalls
import ParleyCore
import ParleyProtocol
import ParleyStorage
import Testing

/// The shared call directory (`call_parties`) through `SharedCallNetwork`, on a database of its own.
@Suite struct SharedCallNetworkTests {
    /// A node alone on the bus: nothing to ask, nobody answers.
    struct Alone: NodeRequests {
        let nodeID: String
        func request(_ body: String, topic: String, to node: String, timeout: Duration) async throws(ParleyError) -> String {
            throw NodeRequestErrors.unreachable
        }
        func answer(_ topic: String, with handler: @escaping @Sendable (String) async -> String) {}
    }

    static func parties(in database: Database) async throws -> [String] {
        try await database.read { sql in
            try sql.query(#"SELECT "user_id" FROM "call_parties" ORDER BY "user_id""#).map { try $0.decode(column: "user_id", as: String.self) }
        }
    }

    /// Placing a call can take longer than the directory's expiry on a loaded node (its
    /// reservation written, the book not yet holding it): the renewal, which takes away the rows
    /// of calls the book does not hold, keeps those of a call still being placed — until released.
    @Test func aCallStillBeingPlacedKeepsItsRowsHoweverLongPlacingTakes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-directory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let logger = Logger(label: "test")
        let database = try await Database.openSQLite(path: folder.path + "/parley.sqlite", logger: logger)
        try await Migrator(database: database, logger: logger).run(CallMigrations.all.filter { $0.id == "calls.2" }, now: 1)
        let network = SharedCallNetwork(database: database, requests: Alone(nodeID: "node-1"), logger: logger)

        let startedLongAgo = Date().addingTimeInterval(-2 * SharedCallNetwork.expiry)
        let call = CallParties(id: CallID(rawValue: "placing"), caller: UserID(rawValue: "ann"), callee: UserID(rawValue: "bo"),
                               media: .audio, startedAt: startedLongAgo)
        #expect(try await network.reserve(call) == .reserved)
        network.start(live: { [] }, abandoned: { _ in })   // the book holds nothing yet
        try await Task.sleep(for: .seconds(1))                // the first renewal runs at once
        #expect(try await Self.parties(in: database) == ["ann", "bo"], "the rows of the call being placed stay")

        await network.release(call.id)
        #expect(try await Self.parties(in: database).isEmpty)
        await network.stop()
        try await database.close()
    }
}
