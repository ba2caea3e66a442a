import Foundation
import Logging
import ParleyCalls
import ParleyCore
import ParleyGateway
import ParleyRealtime
import ParleyRelay
import ParleyStorage
import ServiceLifecycle

/// Follows the relay's leg events for the calls; ends every call at shutdown, and lets the
/// sockets write that (`call.ended`) before the HTTP server closes them.
struct CallKeeper: Service {
    let calls: CallService
    let relay: MediaRelay
    let hub: EventHub

    func run() async throws {
        let follower = Task { await calls.followRelay(relay.events) }
        try? await gracefulShutdown()
        await calls.shutdown()
        follower.cancel()
        await hub.written(within: .seconds(2))
    }
}

/// Stops the media relay at shutdown.
struct RelayStopper: Service {
    let relay: MediaRelay

    func run() async throws {
        try? await gracefulShutdown()
        await relay.shutdown()
    }
}

/// Closes the database after the server has stopped taking requests.
struct DatabaseCloser: Service {
    let database: Database

    var nodes: SharedNodeBus? = nil
    /// What the closed sockets still write (last seen, a call's device gone) goes first.
    var departures: Departures? = nil

    func run() async throws {
        try? await gracefulShutdown()
        await departures?.finished(within: .seconds(5))
        await nodes?.stop()
        try await database.close()
    }
}
