import Foundation
import ParleyCore
import ParleyRelay

extension CallService: DevicePresence {
    /// Follows the relay's leg events: a leg that dies (consent lost, DTLS failed) loses its call.
    public func followRelay() async {
        for await event in relay.events {
            switch event.kind {
            case .dead, .failed:
                let id = CallID(rawValue: event.owner)
                if calls[id] != nil { try? await apply(.connectionLost, to: id) }
            default:
                break
            }
        }
    }

    /// A device left the realtime socket: if it is in a call, the call waits for it a while.
    public func deviceDisconnected(_ device: SessionID, user: UserID) {
        for (id, entry) in calls where entry.machine.involves(user) && participates(device, entry.machine) {
            calls[id]?.graceTimers[device]?.cancel()
            calls[id]?.graceTimers[device] = timer(after: settings.reconnectGrace) { service in
                try await service.apply(.connectionLost, to: id)
            }
        }
    }

    /// The device is back in time: its call goes on.
    public func deviceReconnected(_ device: SessionID, user: UserID) {
        for (id, entry) in calls where entry.machine.involves(user) {
            entry.graceTimers[device]?.cancel()
            calls[id]?.graceTimers[device] = nil
        }
    }

    /// The caller's device, or the callee's device that answered.
    func participates(_ device: SessionID, _ machine: CallStateMachine) -> Bool {
        if device == machine.callerDevice { return true }
        if case .active(let answeredBy, _) = machine.phase { return device == answeredBy }
        return false
    }

    /// Ends every call: the server is stopping.
    public func shutdown() async {
        for id in Array(calls.keys) { try? await apply(.shutdown, to: id) }
    }

    /// Calls by state, for /admin/status.
    public func counts() -> (ringing: Int, active: Int, ended: Int) {
        let ringing = calls.values.filter { $0.machine.phase == .ringing }.count
        return (ringing, calls.count - ringing, endedCount)
    }

    /// The user's call history, newest first, missed calls included.
    public func history(of user: UserID, cursor: String?, limit: Int) async throws -> (calls: [CallHistoryRecord], next: String?) {
        var position: (Int64, String)?
        if let cursor {
            guard let bytes = Base64URL.decode(cursor), case let parts = String(decoding: bytes, as: UTF8.self).split(separator: ":", maxSplits: 1),
                  parts.count == 2, let time = Int64(parts[0])
            else { throw ParleyError.badRequest("cursor is not one this server gave out", code: "invalid_cursor") }
            position = (time, String(parts[1]))
        }
        let limit = min(max(limit, 1), 100)
        let page = try await store.calls(of: user, before: position, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { Base64URL.encode(Array("\(Int64(($0.startedAt.timeIntervalSince1970 * 1000).rounded())):\($0.id.rawValue)".utf8)) } : nil
        return (shown, next)
    }
}
