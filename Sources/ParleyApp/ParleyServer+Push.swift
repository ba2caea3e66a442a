import Foundation
import Logging
import ParleyAccounts
import ParleyChat
import ParleyCore
import ParleyPush
import ParleyRealtime
import ServiceLifecycle

extension ParleyServer {
    /// The APNs provider and the dispatcher that feeds it every delivered event; nil (and one log
    /// line) when `push.apns.keyFile` is not set, so a server without a key runs as before.
    static func push(
        _ config: ParleyConfiguration, store: PushStore, events: EventLog, accounts: AccountService, chat: ChatService,
        logger: Logger
    ) throws -> PushDispatcher? {
        guard config.push.isConfigured else {
            logger.notice("push is off: set push.apns.keyFile, keyId, teamId and bundleId to ring closed apps through APNs")
            return nil
        }
        guard let environment = APNsEnvironment(rawValue: config.push.environment) else {
            throw ParleyError(.internalFailure, code: "invalid_configuration", "push.apns.environment is sandbox or production")
        }
        let apns = try APNsClient(
            configuration: APNsConfiguration(
                keyFile: config.push.keyFile, keyID: config.push.keyID, teamID: config.push.teamID, bundleID: config.push.bundleID,
                environment: environment, url: config.push.url.isEmpty ? nil : config.push.url,
                caFile: config.push.caFile.isEmpty ? nil : config.push.caFile),
            logger: logger)
        let dispatcher = PushDispatcher(
            store: store, sender: apns, hub: events.hub,
            context: .init(
                name: { user in (try? await accounts.user(id: user).name) ?? "Someone" },
                unreadDialogs: { user in (try? await chat.unreadDialogCount(of: user)) ?? 0 },
                ringTimeout: TimeInterval(config.ringSeconds)),
            logger: logger)
        events.onDelivered { dispatcher.observe($0) }
        logger.notice("push is on", metadata: ["bundleId": "\(config.push.bundleID)", "apns": "\(config.push.url.isEmpty ? "Apple" : config.push.url)"])
        return dispatcher
    }
}

/// Sends what is queued and closes the APNs connection when the server stops.
struct PushStopper: Service {
    let push: PushDispatcher

    func run() async throws {
        try? await gracefulShutdown()
        await push.shutdown()
    }
}
