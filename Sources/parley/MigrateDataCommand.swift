import ArgumentParser
import Foundation
import Logging
import ParleyApp

/// `parley migrate-data`: copies a stopped node's SQLite database into a new PostgreSQL database,
/// which the nodes then share (`database.url`). Prints each table's rows as it goes and exits
/// non-zero on any failure.
struct MigrateDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-data",
        abstract: "Copy this installation's SQLite database into an empty PostgreSQL database.",
        discussion: """
            Stop the node first. The SQLite file is opened read-only and never changed. The target
            gets every migration, then every table's rows; it must hold no data. Avatars and
            attachments are files, not rows: move or share the data folder's files/ and avatars/
            as they are.
            """)

    @Option(name: .shortAndLong, help: "The YAML configuration file, for data.directory (and database.url when --to is not given).")
    var config = "config/parley.yaml"

    @Option(help: "Override data.directory.")
    var data: String?

    @Option(help: "The SQLite file to copy (default: parley.sqlite in data.directory).")
    var from: String?

    @Option(help: "The PostgreSQL database to fill: postgres://USER:PASSWORD@HOST:PORT/DATABASE (default: database.url).")
    var to: String?

    func run() async throws {
        var configuration = try await ParleyConfiguration.load(file: config)
        if let data { configuration.dataDirectory = data }
        let source = from ?? configuration.dataDirectory + "/parley.sqlite"
        guard let target = to ?? (configuration.databaseURL.isEmpty ? nil : configuration.databaseURL) else {
            throw ValidationError("name the PostgreSQL database: --to postgres://USER:PASSWORD@HOST:PORT/DATABASE (or set database.url)")
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "parley-migrate-data")
        print("Copying \(source) to \(Self.withoutPassword(target))")
        let started = ContinuousClock.now
        let report = try await ParleyServer.migrateData(fromSQLite: source, toPostgreSQL: target, logger: logger) { table, rows in
            print("  \(table.padding(toLength: 24, withPad: " ", startingAt: 0)) \(rows) row\(rows == 1 ? "" : "s")")
        }
        // Grouped by reason: each full-text index has four shadow tables of its own.
        var reasons: [String] = []
        for skipped in report.skipped where !reasons.contains(skipped.reason) { reasons.append(skipped.reason) }
        for reason in reasons {
            let names = report.skipped.filter { $0.reason == reason }.map(\.name)
            print("  skipped \(names.count > 3 ? "\(names.count) tables" : names.joined(separator: ", ")): \(reason)")
        }
        if !report.sequences.isEmpty {
            print("  sequences moved past the copied ids: \(report.sequences.joined(separator: ", "))")
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("Checked: \(report.tables.count) tables, \(report.rows) rows, the same count in each table on both sides (\(String(format: "%.1f", seconds)) s).")
        print("""
            Files are not in the database: move or share \(configuration.effectiveFilesDirectory)/files and \
            \(configuration.effectiveFilesDirectory)/avatars as they are (several nodes: into one folder that files.directory names on each), \
            and \(configuration.dataDirectory)/jwt-secret and admin-token unless auth.jwtSecret and admin.token are set; \
            then start the nodes with database.url set to the new database.
            """)
    }

    /// The URL with its password hidden, for the output.
    static func withoutPassword(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
