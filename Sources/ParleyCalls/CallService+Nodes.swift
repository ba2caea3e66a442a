import Foundation
import ParleyCore
import ParleyProtocol

/// Calls across the nodes of one installation: a command about a call held on another node goes
/// there (`CallRequest`), and what another node asks about a call held here is carried out here
/// as if its device were connected to this node.
extension CallService {
    /// The node holding call `id` when it is another one (nil: here, or nowhere). Looking it up
    /// and carrying the command there cost a read and a round trip over the bus, so a person may
    /// send at most ``commandsElsewherePerMinute`` commands a minute about calls this node does
    /// not hold (`rate_limited` past them); a call's whole life takes a handful.
    func holder(of id: CallID, for user: UserID) async throws -> String? {
        guard network.isShared, !book.holds(id) else { return nil }
        try elsewhereLimit.admit(user.rawValue, now: timers.now())
        guard let node = await network.node(of: id), node != network.node else { return nil }
        return node
    }

    /// Carries out another node's request about a call held here.
    public func serve(_ request: CallRequest) async -> CallReply {
        do {
            switch request {
            case .accept(let id, let user, let device, let sdp):
                return .answer(sdp: try await acceptHere(id, by: user, device: device, sdp: sdp))
            case .decline(let id, let user):
                await perform(try book.decline(id, by: user, at: timers.now()))
            case .hangup(let id, let user):
                await perform(try book.hangup(id, by: user, at: timers.now()))
            case .media(let id, let user, let audio, let video):
                await perform(try book.media(id, by: user, audio: audio, video: video))
            case .restart(let id, let user, let device, let sdp):
                return .answer(sdp: try await restartHere(id, by: user, device: device, sdp: sdp))
            case .deviceLeft(let device, let user):
                await perform(book.deviceLeft(device, user: user))
            case .deviceReturned(let device, let user):
                await perform(book.deviceReturned(device, user: user))
            case .blocked(let blocked, let blocker):
                await perform(book.blocked(blocked, by: blocker, at: timers.now()))
            case .liveCalls(let user, let device):
                return .liveCalls(book.liveCalls(of: user, device: device))
            }
            return .done
        } catch let error as ParleyError {
            return .failed(error)
        } catch {
            logger.error("call request failed", metadata: ["error": "\(error)"])
            return .failed(ParleyError(.internalFailure, code: "internal_error", "Something went wrong on our side"))
        }
    }

    /// The calls this node holds.
    public func liveCallIDs() -> [CallID] { book.callIDs }

    /// Tells the nodes holding `user`'s calls elsewhere (a device's socket, a block).
    func tellOtherNodes(of user: UserID, _ request: CallRequest) async {
        guard network.isShared else { return }
        for node in Set(await network.callsElsewhere(of: user).map(\.node)) {
            do { try await network.send(request, to: node).check() } catch {
                logger.warning("a call's node was not told", metadata: ["node": "\(node)", "error": "\(error)"])
            }
        }
    }

    /// Calls whose node stopped (killed, cut off): each ends `connection_lost` for both people
    /// and is recorded, by whichever node found it first.
    public func abandoned(_ calls: [AbandonedCall]) async {
        for call in calls {
            logger.warning("a call's node stopped; the call ends", metadata: ["call": "\(call.parties.id)", "node": "\(call.node)"])
            let duration = call.answeredAt.map { max(0, Int(call.lastSeen.timeIntervalSince($0).rounded())) } ?? 0
            // Recorded before it is announced, as CallStateMachine does: a client that reads its
            // history on `call.ended` finds the call.
            await record(CallHistoryRecord(id: call.parties.id, caller: call.parties.caller, callee: call.parties.callee,
                                           media: call.parties.media, reason: .connectionLost, answered: call.answeredAt != nil,
                                           startedAt: call.parties.startedAt, durationSeconds: duration))
            await events.publish(.callEnded(CallEndedEvent(callId: call.parties.id.rawValue, reason: .connectionLost, durationSeconds: duration)),
                                 to: [call.parties.caller, call.parties.callee], exceptSession: nil)
            metrics.ended(call.answeredAt != nil ? "answered" : CallEndReason.connectionLost.rawValue)
        }
    }
}

/// A call whose node stopped renewing its directory entries.
public struct AbandonedCall: Sendable, Equatable {
    public var parties: CallParties
    public var node: String
    public var answeredAt: Date?
    /// When its node last said it was alive.
    public var lastSeen: Date

    public init(parties: CallParties, node: String, answeredAt: Date?, lastSeen: Date) {
        self.parties = parties
        self.node = node
        self.answeredAt = answeredAt
        self.lastSeen = lastSeen
    }
}
