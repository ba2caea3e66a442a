import Foundation
import Logging
import ParleyCore
import ParleyProtocol
import ParleyRealtime
import Synchronization

/// Who gets a push, and which: watches every stored event (after live delivery) and pushes to the
/// recipient's registered devices that have no live realtime connection — the phones whose app
/// iOS has suspended or that was never opened.
///
/// - `call.incoming` → a VoIP push (CallKit rings) to each such device, unless calls are switched off;
/// - the ring ends before the app answered (`call.ended`) → a VoIP push with the reason to the
///   devices that were rung that way; a missed call → also an alert;
/// - `message.new` → an alert (sender, preview unless off, `thread-id` per dialog, badge = unread
///   dialogs), unless messages are switched off or the dialog is muted;
/// - `friend.request` → an alert, unless friend requests are switched off.
/// Blocked or unfriended senders never produce these events, and a device whose session ended
/// has no tokens left (they go with the session).
public final class PushDispatcher: Sendable {
    public struct Context: Sendable {
        /// A user's display name, for "Ann is calling".
        public var name: @Sendable (UserID) async -> String
        /// The badge: dialogs with unread messages.
        public var unreadDialogs: @Sendable (UserID) async -> Int
        /// How long a call rings: a VoIP push later than that is dropped, not delivered late.
        public var ringTimeout: TimeInterval

        public init(name: @escaping @Sendable (UserID) async -> String, unreadDialogs: @escaping @Sendable (UserID) async -> Int,
                    ringTimeout: TimeInterval) {
            self.name = name
            self.unreadDialogs = unreadDialogs
            self.ringTimeout = ringTimeout
        }
    }

    /// A call that rang through this node: who called whom, and which devices got a VoIP push.
    struct Ringing: Sendable {
        var caller: UserID
        var callee: UserID
        var pushed: [PushTarget] = []
        /// The incoming-call pushes still under way, so the end push goes after them.
        var sends: [Task<Void, Never>] = []
    }

    let sender: any PushSender
    private let queue: AsyncStream<[StoredEvent]>.Continuation
    private let worker: Task<Void, Never>

    public init(store: PushStore, sender: any PushSender, hub: EventHub, context: Context, logger: Logger) {
        self.sender = sender
        let (events, queue) = AsyncStream<[StoredEvent]>.makeStream(bufferingPolicy: .bufferingNewest(10_000))
        self.queue = queue
        let decisions = Worker(store: store, sender: sender, hub: hub, context: context, logger: logger)
        worker = Task {
            for await batch in events {
                for event in batch { await decisions.handle(event) }
            }
        }
    }

    /// The APNs provider's figures (nil for another sender).
    public func stats() -> APNsStats? { (sender as? APNsClient)?.stats() }

    /// Hands events over (from `EventLog.onDelivered`); decided in order on one task.
    public func observe(_ events: [StoredEvent]) {
        let wanted = events.filter { $0.event.map(Worker.wants) ?? false }
        if !wanted.isEmpty { queue.yield(wanted) }
    }

    /// Stops taking events, finishes what is queued, then closes the sender.
    public func shutdown() async {
        queue.finish()
        await worker.value
        await sender.shutdown()
    }
}

/// The dispatcher's decisions, one event at a time.
final class Worker: Sendable {
    static func wants(_ event: RealtimeEvent) -> Bool {
        switch event {
        case .callIncoming, .callEnded, .messageNew, .friendRequest: true
        default: false
        }
    }

    let store: PushStore
    let sender: any PushSender
    let hub: EventHub
    let context: PushDispatcher.Context
    let logger: Logger
    let ringing = Mutex<[String: PushDispatcher.Ringing]>([:])

    init(store: PushStore, sender: any PushSender, hub: EventHub, context: PushDispatcher.Context, logger: Logger) {
        self.store = store
        self.sender = sender
        self.hub = hub
        self.context = context
        self.logger = logger
    }

    func handle(_ event: StoredEvent) async {
        do {
            switch event.event {
            case .callIncoming(let call)?: try await incomingCall(event, call)
            case .callEnded(let ended)?: try await callEnded(event, ended)
            case .messageNew(let new)?: try await newMessage(event, new.message)
            case .friendRequest(let request)?: try await friendRequest(event, request)
            default: break
            }
        } catch {
            logger.warning("push not sent", metadata: ["event": "\(event.type)", "error": "\(error)"])
        }
    }

    /// The recipient's devices that registered a token for `kind` and have no live connection.
    func asleep(_ user: UserID, _ kind: PushKind) async throws -> [PushTarget] {
        try await store.devices(of: user).filter { !hub.isConnected($0.sessionID, of: user) }.compactMap { $0.target(for: kind) }
    }

    func incomingCall(_ event: StoredEvent, _ incoming: CallIncomingEvent) async throws {
        let callID = incoming.callId, from = incoming.from
        let caller = UserID(rawValue: from)
        var call = PushDispatcher.Ringing(caller: caller, callee: event.userID)
        // APNs lives on real time (the provider token's iat, a push's deadline), whatever clock
        // the rest of the server is given.
        let now = Date()
        if try await store.settings(of: event.userID).calls {
            let targets = try await asleep(event.userID, .voip)
            if !targets.isEmpty {
                let payload = PushPayloads.incomingCall(
                    callID: callID, from: .init(id: from, name: await context.name(caller)), media: incoming.media.rawValue)
                let message = PushMessage(kind: .voip, payload: payload, priority: 10, expiration: nil,
                                          deadline: now.addingTimeInterval(context.ringTimeout), createdAt: now)
                call.pushed = targets
                call.sends = targets.map { target in Task { await send(message, to: target) } }
            }
        }
        let ringingCall = call
        ringing.withLock { $0[callID] = ringingCall }
    }

    func callEnded(_ event: StoredEvent, _ ended: CallEndedEvent) async throws {
        let callID = ended.callId, reason = ended.reason.rawValue
        let call = ringing.withLock { calls -> PushDispatcher.Ringing? in
            guard let call = calls[callID], call.callee == event.userID else { return nil }
            calls[callID] = nil
            return call
        }
        guard let call else { return }
        for send in call.sends { await send.value }
        let awake = Set(try await store.devices(of: event.userID).filter { hub.isConnected($0.sessionID, of: event.userID) }
            .compactMap { $0.voipToken })
        let now = Date()
        let stop = PushMessage(kind: .voip, payload: PushPayloads.callEnded(callID: callID, reason: reason), priority: 10,
                               deadline: now.addingTimeInterval(context.ringTimeout), createdAt: now)
        for target in call.pushed where !awake.contains(target.token) {
            Task { await send(stop, to: target) }
        }
        guard reason == "no_answer" || reason == "canceled", try await store.settings(of: event.userID).calls else { return }
        let name = await context.name(call.caller)
        let alert = PushPayloads.alert(title: name, body: "Missed call", badge: nil, threadID: nil,
                                       fields: ["type": "call.missed", "callId": callID])
        for target in try await asleep(event.userID, .alert) {
            Task { await send(PushMessage(kind: .alert, payload: alert, createdAt: Date()), to: target) }
        }
    }

    func newMessage(_ event: StoredEvent, _ message: MessageView) async throws {
        let dialog = message.dialogId, senderID = message.senderId
        guard senderID != event.userID.rawValue, message.kind != .call else { return }
        let settings = try await store.settings(of: event.userID)
        guard settings.messages, try await !store.isMuted(DialogID(rawValue: dialog), for: event.userID) else { return }
        let targets = try await asleep(event.userID, .alert)
        guard !targets.isEmpty else { return }
        let payload = PushPayloads.alert(
            title: await context.name(UserID(rawValue: senderID)),
            body: PushPayloads.preview(kind: message.kind.rawValue, text: message.text, previews: settings.previews),
            badge: await context.unreadDialogs(event.userID), threadID: dialog,
            fields: ["type": "message.new", "dialogId": dialog, "messageId": message.id])
        for target in targets {
            Task { await send(PushMessage(kind: .alert, payload: payload, createdAt: Date()), to: target) }
        }
    }

    func friendRequest(_ event: StoredEvent, _ request: FriendRequestEvent) async throws {
        let from = request.from
        guard from != event.userID.rawValue,
              try await store.settings(of: event.userID).friendRequests else { return }
        let targets = try await asleep(event.userID, .alert)
        guard !targets.isEmpty else { return }
        let payload = PushPayloads.alert(
            title: await context.name(UserID(rawValue: from)), body: "Wants to be your friend", badge: nil, threadID: nil,
            fields: ["type": "friend.request", "requestId": request.id])
        for target in targets {
            Task { await send(PushMessage(kind: .alert, payload: payload, createdAt: Date()), to: target) }
        }
    }

    /// Sends, and forgets a token APNs says is gone.
    func send(_ message: PushMessage, to target: PushTarget) async {
        let outcome = await sender.send(message, to: target)
        switch outcome {
        case .delivered: break
        case .tokenGone(let reason):
            logger.info("push token gone", metadata: ["reason": "\(reason)"])
            try? await store.removeToken(target.token)
        case .failed(let reason):
            logger.warning("push failed", metadata: ["kind": "\(message.kind)", "reason": "\(reason)"])
        case .expired:
            logger.info("push dropped: too late", metadata: ["kind": "\(message.kind)"])
        }
    }
}
