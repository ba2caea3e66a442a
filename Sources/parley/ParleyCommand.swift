import ArgumentParser

/// `parley`: starts the server (`serve`, also what runs with no subcommand, so `parley --config …`
/// is unchanged) or moves an installation's data (`migrate-data`).
@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Parley: accounts, friends, chat, stories and 1:1 calls for messaging apps.",
        subcommands: [ServeCommand.self, MigrateDataCommand.self],
        defaultSubcommand: ServeCommand.self)
}
