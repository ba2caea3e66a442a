import Foundation
import ParleyMediaClient

/// The `calls` scenario: `calls` concurrent 1:1 video (or audio) calls between friend pairs,
/// placed through the realtime gateway (`call.invite` → `call.incoming` → `call.accept` →
/// `call.accepted`), each side a ``MediaClient`` that connects to the relay with ICE, DTLS-SRTP and
/// SRTP and sends Opus and VP8 while it checks what comes back.
///
/// Senders replay one shared pre-encoded loop (libopus: a 440 Hz tone; libvpx: a moving pattern
/// carrying frame numbers), so hundreds of senders cost what the packets cost, not what encoding
/// costs. Every receiver checks every frame against that loop byte for byte; the first
/// `decodingCalls` calls also decode everything with libopus and libvpx and check the tone and the
/// frame numbers.
public struct CallsScenario: Sendable {
    public let api: ServerAPI
    public let options: CallsOptions

    public init(api: ServerAPI, options: CallsOptions) {
        self.api = api
        self.options = options
    }

    struct Party: Sendable {
        var user: ServerAPI.User
        var connection: RealtimeConnection
    }

    public func run(progress showProgress: Bool = true) async throws -> CallsReport {
        if options.workers > 1, options.workerIndex == nil { return try await runWorkers(progress: showProgress) }
        let progress = Progress()
        let (shared, parties) = try await prepare(progress: progress)
        defer { for party in parties { party.connection.close() } }

        let collector = CallsCollector()
        let (start, end) = schedule(from: ContinuousClock.now)
        let sampler = Task {
            await sample(start: start, until: end, progress: showProgress ? progress : nil, withChildren: false) { await collector.snapshot }
        }
        await placeCalls(parties: parties, shared: shared, collector: collector, start: start, end: end)
        let timeline = await sampler.value
        progress.finish()
        return CallsReport(options: options, collected: await collector.snapshot, timeline: timeline)
    }

    /// The shared media loop, and this process's users seeded in pairs and on their sockets.
    func prepare(progress: Progress) async throws -> (PreEncodedMedia, [Party]) {
        progress.note("encoding the shared media loop (\(options.videoWidth)×\(options.videoHeight), \(options.videoBitrateKbps) kbit/s)…")
        let shared = try PreEncodedMedia(configuration: options.baseConfiguration)
        let prefix = "lt" + String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let users = try await api.seedUsers(count: options.callIndices.count * 2, prefix: prefix, befriend: "pairs")
        progress.note("seeded \(users.count) users; connecting their realtime sockets…")
        let connections = try await RealtimeConnection.connectAll(url: api.realtimeURL, tokens: users.map(\.accessToken))
        return (shared, zip(users, connections).map { Party(user: $0, connection: $1) })
    }

    /// When the run's calls start and their media ends, from `start`: the ramp of every call
    /// (all workers' together), then the duration.
    func schedule(from start: ContinuousClock.Instant) -> (start: ContinuousClock.Instant, end: ContinuousClock.Instant) {
        (start, start + .seconds(Double(options.calls) / options.rampPerSecond) + options.duration)
    }

    /// This process's calls, each at its place in the ramp: call `i` of the run starts `i / ramp`
    /// seconds after `start`, whichever process places it.
    func placeCalls(parties: [Party], shared: PreEncodedMedia, collector: CallsCollector,
                    start: ContinuousClock.Instant, end: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            for (local, index) in options.callIndices.enumerated() {
                let startAt = start + .seconds(Double(index) / options.rampPerSecond)
                let pair = (caller: parties[2 * local], callee: parties[2 * local + 1])
                group.addTask {
                    try? await Task.sleep(until: startAt)
                    await placeCall(index, caller: pair.caller, callee: pair.callee, shared: shared, collector: collector, end: end)
                }
            }
        }
    }

    /// One call from invite to hangup.
    private func placeCall(_ index: Int, caller: Party, callee: Party, shared: PreEncodedMedia,
                           collector: CallsCollector, end: ContinuousClock.Instant) async {
        let decoding = index < options.decodingCalls
        let invitedAt = ContinuousClock.now
        do {
            let callerClient = try await MediaClient(configuration: options.clientConfiguration(shared: shared, decoding: decoding))
            let invite = try await caller.connection.command("call.invite", [
                "to": callee.user.id, "media": options.video ? "video" : "audio", "sdp": callerClient.offer,
            ])
            guard let callID = invite["callId"] as? String, let callerAnswer = invite["sdp"] as? String else {
                throw RealtimeConnection.Failure.refused(type: "call.invite", code: "no callId or sdp")
            }
            let incoming = try await callee.connection.event { $0.type == "call.incoming" && $0["callId"] as? String == callID }
            let calleeClient = try await MediaClient(configuration: options.clientConfiguration(shared: shared, decoding: decoding))
            let accept = try await callee.connection.command("call.accept", ["callId": callID, "sdp": calleeClient.offer])
            guard let calleeAnswer = accept["sdp"] as? String else {
                throw RealtimeConnection.Failure.refused(type: "call.accept", code: "no sdp")
            }
            let accepted = try await caller.connection.event { $0.type == "call.accepted" && $0["callId"] as? String == callID }
            await collector.established(incoming: incoming.receivedAt - invitedAt, active: accepted.receivedAt - invitedAt)
            // A call the server ends before the run does (connection_lost, …) is a failure.
            let endedEarly = Task { [connection = caller.connection] in
                try await connection.event(timeout: end - ContinuousClock.now) { $0.type == "call.ended" && $0["callId"] as? String == callID }
            }
            let callerSide = Handoff(client: callerClient), calleeSide = Handoff(client: calleeClient)
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    await Self.runSide(callerSide.client, answer: callerAnswer, key: .init(call: index, side: .caller),
                                       invitedAt: invitedAt, until: end, collector: collector)
                }
                group.addTask {
                    await Self.runSide(calleeSide.client, answer: calleeAnswer, key: .init(call: index, side: .callee),
                                       invitedAt: invitedAt, until: end, collector: collector)
                }
            }
            await collector.callEnded()
            if let ended = try? await endedEarly.value, ended.receivedAt < end {
                await collector.failed("call ended early by the server: \(ended["reason"] as? String ?? "?")")
            }
            _ = try? await caller.connection.command("call.hangup", ["callId": callID], timeout: .seconds(5))
        } catch {
            await collector.failed("\(error)")
        }
    }

    /// Connects one side to the relay and runs its media in one-second slices until `end`.
    private static func runSide(_ client: MediaClient, answer: String, key: CallsCollector.SideKey,
                                invitedAt: ContinuousClock.Instant, until end: ContinuousClock.Instant,
                                collector: CallsCollector) async {
        defer { client.close() }
        do {
            try await client.connect(answer: answer)
            while ContinuousClock.now < end {
                let slice = min(.seconds(1), end - ContinuousClock.now)
                let report = try await client.runCall(for: slice)
                await collector.update(key, report, invitedAt: invitedAt)
            }
        } catch {
            await collector.failed("\(key.side): \(error)")
        }
    }

    /// Once a second until `end`: the calls' figures (this process's collector, or the merged
    /// figures of the workers) and the server's status, as a timeline.
    func sample(start: ContinuousClock.Instant, until end: ContinuousClock.Instant, progress: Progress?,
                withChildren: Bool, source: () async -> CallsCollector.Snapshot) async -> CallsTimeline {
        var timeline = CallsTimeline()
        var loss = LossTimeline()
        var previous: (at: ContinuousClock.Instant, totals: CallsCollector.Totals, status: ServerAPI.Status?)?
        var tick = start
        while tick < end + .seconds(1) {
            tick += .seconds(1)
            try? await Task.sleep(until: tick)
            let now = ContinuousClock.now
            let collected = await source()
            let totals = collected.totals
            let status = try? await api.status()
            let callsUp = collected.callsUp, established = collected.established, failed = collected.failed
            var point = TimelinePoint(time: (now - start).seconds, active: callsUp, rate: 0,
                                      lossPercent: loss.add(sent: totals.packetsSent, received: totals.packetsReceived,
                                                            gaps: totals.packetsLost).percent)
            if let previous {
                let elapsed = (now - previous.at).seconds
                if let status, let before = previous.status {
                    point.rate = Double(status.relay.packetsOut &- before.relay.packetsOut) / elapsed
                    point.serverCPUPercent = (status.process.cpuSeconds - before.process.cpuSeconds) / elapsed * 100
                }
                let window = totals.latency.subtracting(previous.totals.latency)
                point.latencyP50 = window.percentile(50).map(\.milliseconds)
                point.latencyP99 = window.percentile(99).map(\.milliseconds)
            }
            timeline.points.append(point)
            // The server's window ends with the calls' media (the last tick comes after it).
            if let status, now <= end + .milliseconds(200) {
                timeline.statuses.append(.init(at: now, status: status, host: .now(withChildren: withChildren),
                                               allPlaced: callsUp == options.calls || established + failed == options.calls))
            }
            timeline.lostPackets = loss.lost
            previous = (now, totals, status)
            progress?.show("[\(Int(point.time.rounded()))s] calls up \(callsUp)/\(options.calls)"
                + "  relay \(Int(point.rate)) pps  loss \(point.lossPercent.fixed(2)) %"
                + "  latency p50 \(point.latencyP50.map { $0.fixed(2) } ?? "-") ms"
                + "  server CPU \(point.serverCPUPercent.map { Int($0) }.map(String.init) ?? "-") %"
                + (failed > 0 ? "  failed \(failed)" : ""))
        }
        return timeline
    }
}

/// Hands a media client, made while the call was signalled, to the one task that drives it from
/// then on (a client is used by one task at a time; this one is never touched again by its maker).
private struct Handoff: @unchecked Sendable {
    let client: MediaClient
}

/// The samples a calls run keeps: the progress points and the server's status at each.
struct CallsTimeline: Sendable {
    var points: [TimelinePoint] = []
    var statuses: [StatusSample] = []
    /// Packets found lost over the run (``LossTimeline``): gaps, and packets long overdue.
    var lostPackets = 0
}

/// The server's status at one tick, beside the harness's own figures.
struct StatusSample: Sendable {
    var at: ContinuousClock.Instant
    var status: ServerAPI.Status
    var host: HostFigures
    /// Whether every call had been placed (established or failed) by then.
    var allPlaced: Bool
}
