import ArgumentParser
import Foundation
import ParleyLoadTest

/// `parley-loadtest`: drives calls (real Opus and VP8 through the relay) and chat through a running
/// Parley and reports what it measured: a live progress line, a table, a JSON file and an SVG chart.
@main
struct LoadTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-loadtest",
        abstract: "Drives calls and chat through a running Parley and reports what it measured.",
        subcommands: [CallsCommand.self, ChatCommand.self, IdleCommand.self, NetemCommand.self])
}

/// Where the server is and how to reach its operator routes.
struct ServerOptions: ParsableArguments {
    @Option(help: "The server's base URL.")
    var server = "http://127.0.0.1:8080"

    @Option(help: "The admin token (default: $PARLEY_ADMIN_TOKEN, else the file --admin-token-file).")
    var adminToken: String?

    @Option(help: "Where the server keeps its generated admin token.")
    var adminTokenFile = "data/admin-token"

    @Option(help: "Folder for the JSON report and the SVG chart.")
    var out = "loadtest-results"

    func api() throws -> ServerAPI {
        let token = adminToken ?? ProcessInfo.processInfo.environment["PARLEY_ADMIN_TOKEN"]
            ?? (try? String(contentsOfFile: adminTokenFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let token, !token.isEmpty else {
            throw ValidationError("No admin token: pass --admin-token, set PARLEY_ADMIN_TOKEN, or point --admin-token-file at <data>/admin-token")
        }
        return ServerAPI(baseURL: server, adminToken: token)
    }

    /// Writes `<out>/<name>.json` and `<out>/<name>.svg`; returns their paths.
    func write<Report: Encodable>(_ report: Report, chart: String, name: String) throws -> (json: String, svg: String) {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = "\(out)/\(name).json", svg = "\(out)/\(name).svg"
        try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        try Data(chart.utf8).write(to: URL(fileURLWithPath: svg))
        return (json, svg)
    }
}

struct CallsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calls", abstract: "Concurrent 1:1 calls between friend pairs with real Opus and VP8.")

    @OptionGroup var server: ServerOptions

    @Option(help: "Concurrent calls.")
    var calls = 10

    @Option(help: "Seconds of media once every call has started.")
    var duration = 30

    @Option(help: "Calls started per second while ramping up.")
    var ramp = 10.0

    @Flag(help: "Audio-only calls.")
    var audioOnly = false

    @Option(help: "Calls whose receivers also decode with libopus/libvpx (the rest check every frame byte for byte).")
    var decodingCalls = 4

    @Option(help: "Video size, WIDTHxHEIGHT.")
    var videoSize = "640x360"

    @Option(help: "VP8 bitrate, kbit/s.")
    var videoKbps = 1_000

    @Option(help: "Local address the media clients bind and offer (this machine's address when the server is elsewhere).")
    var bindHost = "127.0.0.1"

    @Option(help: "How the media clients reach the relay: udp, or tcp (ICE over TCP to its passive TCP candidate).")
    var transport = "udp"

    @Option(help: ArgumentHelp(
        "An impaired link between the media clients and the relay: tc netem arguments (\"delay 40ms 10ms loss 2%\") or a profile (wifi, lte, 3g, bad), each way.",
        discussion: "scripts/loadtest.sh puts the clients in a network namespace with netem on its veth pair (root, iproute2), or has the harness apply it where the kernel has no netem."))
    var netem: String?

    @Option(help: "Milliseconds between a media client's wake-ups to send what is due (coarser is cheaper, 20 at most).")
    var tickMs = 5

    @Option(help: "Who applies --netem: harness (on each media socket, in user space) or kernel (tc netem, set up by scripts/loadtest.sh).")
    var netemBy = NetemPlacement.harness.rawValue

    @Option(help: ArgumentHelp(
        "Harness processes to spread the media clients over: this one starts N children of itself, each placing every N-th call, and merges their figures into one report.",
        discussion: "With --bind-host, the clients bind that address (this machine's, to reach a server elsewhere)."))
    var workers = 1

    @Option(help: .hidden)
    var workerIndex: Int?

    @Flag(help: "Also run ../shared/reference/run.sh at the relayed packet rate and size and print the CPU ratio.")
    var compareReference = false

    @Option(help: "The reference relay's script.")
    var referenceScript = "../shared/reference/run.sh"

    @Option(help: "Seconds the reference runs.")
    var referenceSeconds = 10

    @Option(help: "Exit 1 when the packet loss is above this percentage.")
    var maxLossPercent: Double?

    @Option(help: "Exit 1 when there are more decode failures than this.")
    var maxDecodeFailures: Int?

    @Flag(help: "Exit 1 unless every call was established and carried media.")
    var requireAllCalls = false

    func run() async throws {
        var options = CallsOptions()
        options.calls = calls
        options.duration = .seconds(duration)
        options.rampPerSecond = ramp
        options.video = !audioOnly
        options.decodingCalls = decodingCalls
        options.videoBitrateKbps = videoKbps
        options.bindHost = bindHost
        guard let transport = MediaTransport(rawValue: transport) else { throw ValidationError("--transport is udp or tcp") }
        options.transport = transport
        guard (1...20).contains(tickMs) else { throw ValidationError("--tick-ms is 1…20") }
        options.tick = .milliseconds(tickMs)
        if let netem {
            do { options.netem = try NetemProfile(netem) } catch { throw ValidationError("--netem: \(error)") }
            guard let placement = NetemPlacement(rawValue: netemBy) else { throw ValidationError("--netem-by is harness or kernel") }
            options.netemPlacement = placement
            guard transport == .udp || placement == .kernel else { throw ValidationError("--netem in the harness needs --transport udp") }
            if placement == .harness, let caveats = options.netem?.userSpaceCaveats, !caveats.isEmpty {
                FileHandle.standardError.write(Data("netem in the harness leaves out: \(caveats.joined(separator: ", "))\n".utf8))
            }
        }
        let size = videoSize.split(separator: "x").compactMap { Int($0) }
        guard size.count == 2 else { throw ValidationError("--video-size is WIDTHxHEIGHT") }
        (options.videoWidth, options.videoHeight) = (size[0], size[1])
        guard (1...64).contains(workers), workers <= max(calls, 1) else { throw ValidationError("--workers is 1…64, at most --calls") }
        options.workers = workers
        if let workerIndex {
            guard (0..<workers).contains(workerIndex) else { throw ValidationError("--worker-index is 0..<--workers") }
            options.workerIndex = workerIndex
            try await CallsScenario(api: try server.api(), options: options).runAsWorker()
            return
        }
        options.workerArguments = Self.childArguments(CommandLine.arguments)

        var report = try await CallsScenario(api: try server.api(), options: options).run()
        // The reference is a comparison beside the run, never a reason to lose it: when it is
        // missing or fails, the report says why and is written all the same.
        if compareReference {
            if let relayed = report.server {
                FileHandle.standardError.write(Data("running the reference relay at \(Int(relayed.relayedPacketsPerSecond)) pps…\n".utf8))
                do {
                    let reference = try ReferenceRun(script: referenceScript).run(
                        packetsPerSecond: Int(relayed.relayedPacketsPerSecond.rounded()),
                        packetSize: Int(relayed.averagePacketBytes.rounded()), seconds: referenceSeconds)
                    report.reference = .init(reference: reference, ratio: relayed.cpuMicrosecondsPerPacket.map { $0 / reference.cpuMicrosecondsPerPacket })
                } catch {
                    report.referenceNote = "no reference comparison: \(error)"
                }
            } else {
                report.referenceNote = "no reference comparison: the run had no steady window to compare"
            }
        }
        print(report.table)
        let files = try server.write(report, chart: report.chart, name: "calls")
        print("report: \(files.json)\nchart:  \(files.svg)")

        var problems: [String] = []
        if let maxLossPercent, report.media.lossPercent > maxLossPercent {
            problems.append("loss \(report.media.lossPercent) % is above \(maxLossPercent) %")
        }
        if let maxDecodeFailures, report.media.decodeFailures > maxDecodeFailures {
            problems.append("\(report.media.decodeFailures) decode failures (at most \(maxDecodeFailures))")
        }
        if requireAllCalls, report.setup.established < calls || !report.setup.failed.isEmpty
            || report.setupTimes.inviteToFirstFrame.count < calls {
            problems.append("not every call was established and carried media")
        }
        if !problems.isEmpty {
            print("FAILED: " + problems.joined(separator: "; "))
            throw ExitCode(1)
        }
    }
}

extension CallsCommand {
    /// This command line for a worker child: without the program's path (and its own
    /// `--worker-index`, if any); `--workers` stays, so the child knows its share.
    static func childArguments(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var skipNext = false
        for argument in arguments.dropFirst() {
            if skipNext { skipNext = false; continue }
            if argument == "--worker-index" { skipNext = true; continue }
            if argument.hasPrefix("--worker-index=") { continue }
            result.append(argument)
        }
        return result
    }
}

struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat", abstract: "Connected users sending messages in private and group dialogs.")

    @OptionGroup var server: ServerOptions

    @Option(help: "Connected users.")
    var users = 100

    @Option(help: "Messages per second, over all users.")
    var rate = 100.0

    @Option(help: "Seconds of sending.")
    var duration = 10

    @Option(help: "Members of each group dialog (0: private dialogs only).")
    var groupSize = 5

    @Option(help: "Share of messages sent to group dialogs (0…1).")
    var groupShare = 0.5

    @Option(help: "Sockets of one more user who floods the node with read receipts while the chat runs (0: none).")
    var flooderSockets = 0

    @Option(name: .customLong("node"), help: ArgumentHelp(
        "Another node of the same installation (one PostgreSQL), by base URL; repeat for more.",
        discussion: "User i connects to node i % N, --server being the first, so most dialogs cross nodes; users are seeded and dialogs opened through --server."))
    var nodes: [String] = []

    @Option(name: .customLong("watch"), help: "NAME=PID: a process beside the servers (and its children) whose CPU the report gives, e.g. postgresql=<postmaster's pid>; repeatable.")
    var watch: [String] = []

    @Flag(help: "Exit 1 unless every message was acknowledged and delivered to every member.")
    var requireAllDelivered = false

    func run() async throws {
        let watched = try watch.map {
            guard let process = ProcessTreeCPU(argument: $0) else { throw ValidationError("--watch is NAME=PID, not \($0)") }
            return process
        }
        let api = try server.api()
        let others = nodes.map { ServerAPI(baseURL: $0, adminToken: api.adminToken) }
        var options = ChatOptions()
        options.users = users
        options.messagesPerSecond = rate
        options.duration = .seconds(duration)
        options.groupSize = groupSize
        options.groupShare = groupShare
        options.flooderSockets = flooderSockets
        let report = try await ChatScenario(api: api, options: options, otherNodes: others, watched: watched).run()
        print(report.table)
        let files = try server.write(report, chart: report.chart, name: "chat")
        print("report: \(files.json)\nchart:  \(files.svg)")
        if requireAllDelivered, report.acknowledged < report.sent || report.deliveries < report.expectedDeliveries {
            print("FAILED: \(report.sent - report.acknowledged) messages unacknowledged, \(report.expectedDeliveries - report.deliveries) deliveries missing")
            throw ExitCode(1)
        }
    }
}

struct IdleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Many connected idle users: the server's resident memory, and invite → call.incoming latency among them.")

    @OptionGroup var server: ServerOptions

    @Option(help: "Connected users (seeded in friend pairs).")
    var users = 1_000

    @Option(help: "Seconds the sockets sit idle before the server's memory is read.")
    var settle = 10

    @Option(help: "Call invites to time after that (0: none); each rings a friend and hangs up.")
    var invites = 0

    @Option(help: "Invites started per second.")
    var inviteRate = 20.0

    @Option(help: "Exit 1 when the server's resident memory with everyone connected is above this many MiB.")
    var maxResidentMib: Double?

    @Option(help: "Exit 1 when the invite → call.incoming p99 is above this many milliseconds.")
    var maxInviteP99Ms: Double?

    func run() async throws {
        var options = IdleOptions()
        options.users = users
        options.settle = .seconds(settle)
        options.invites = invites
        options.invitesPerSecond = inviteRate
        let report = try await IdleScenario(api: try server.api(), options: options).run()
        print(report.table)
        try FileManager.default.createDirectory(atPath: server.out, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let path = "\(server.out)/idle.json"
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        print("report: \(path)")

        var problems: [String] = []
        if report.connected < users { problems.append("only \(report.connected) of \(users) connected") }
        if let maxResidentMib, Double(report.residentBytesConnected) / 1_048_576 > maxResidentMib {
            problems.append("resident memory above \(maxResidentMib) MiB")
        }
        if let maxInviteP99Ms, (report.inviteToIncomingMs.p99 ?? .infinity) > maxInviteP99Ms || !report.inviteFailures.isEmpty {
            problems.append("invite → call.incoming p99 above \(maxInviteP99Ms) ms, or invites failed")
        }
        if !problems.isEmpty {
            print("FAILED: " + problems.joined(separator: "; "))
            throw ExitCode(1)
        }
    }
}

/// `parley-loadtest netem PROFILE`: checks a --netem value and prints its tc netem arguments, so
/// scripts/loadtest.sh can put the same profile on the veth pair before the run starts.
struct NetemCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netem", abstract: "Checks a --netem profile and prints its tc netem arguments.")

    @Argument(help: "tc netem arguments or a profile name (\(NetemProfile.named.map(\.name).joined(separator: ", "))).")
    var profile: String

    func run() throws {
        do { print(try NetemProfile(profile).arguments) } catch { throw ValidationError("\(error)") }
    }
}
