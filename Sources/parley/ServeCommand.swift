import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ParleyApp

/// `parley serve` (and plain `parley`): starts the server. Configuration comes from the YAML
/// file, then the environment.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Start the server (what `parley` does with no subcommand).")

    @Option(name: .shortAndLong, help: "The YAML configuration file (missing is fine: defaults apply).")
    var config = "config/parley.yaml"

    @Option(help: "Override http.port.")
    var port: Int?

    @Option(help: "Override data.directory.")
    var data: String?

    func run() async throws {
        // Everything Parley writes (database, files, mail, secrets) is the owner's alone.
        umask(0o077)
        var configuration = try await ParleyConfiguration.load(file: config)
        if let port { configuration.httpPort = port }
        if let data { configuration.dataDirectory = data }
        let level = Logger.Level(rawValue: configuration.logLevel) ?? .info
        guard ["text", "json"].contains(configuration.logFormat) else { throw ValidationError("log.format is text or json") }
        let json = configuration.logFormat == "json"
        LoggingSystem.bootstrap { label in
            var handler: any LogHandler = json ? JSONLogHandler(label: label) : StreamLogHandler.standardOutput(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "parley")
        let tracing = try ParleyServer.bootstrapTracing(configuration)
        let parts = try await ParleyServer.assemble(configuration, logger: logger)
        try await ParleyServer.run(configuration, parts: parts, logger: logger, observability: tracing.map { [$0] } ?? [])
    }
}
