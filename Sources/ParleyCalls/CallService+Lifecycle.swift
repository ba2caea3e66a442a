import Foundation
import ParleyCore
import ParleyRelay

extension CallService: DevicePresence {
    /// Follows the relay's leg events: a leg that ends (consent lost, DTLS closed by the peer or
    /// failed) ends its call `connection_lost` at once for the other side.
    public func followRelay(_ relayEvents: AsyncStream<LegEvent>) async {
        for await event in relayEvents {
            switch event.kind {
            case .dead, .failed:
                await legLost(CallID(rawValue: event.owner))
            case .closed:
                await legClosed(CallID(rawValue: event.owner))
            case .mediaFlowing:
                timeSetup(.firstMedia, of: CallID(rawValue: event.owner))
            case .connected:
                break
            }
        }
    }

    public func legLost(_ id: CallID) async {
        await perform(book.legLost(id, at: timers.now()))
    }

    /// A leg's client closed it cleanly (DTLS close_notify): the call waits `closeGrace` for the
    /// hangup that usually comes with it.
    public func legClosed(_ id: CallID) async {
        await perform(book.legClosed(id))
    }

    /// A device left the realtime socket: if it is in a call, the call waits for it a while.
    public func deviceDisconnected(_ device: SessionID, user: UserID) async {
        await perform(book.deviceLeft(device, user: user))
        await tellOtherNodes(of: user, .deviceLeft(device, user: user))
    }

    /// The device is back in time: its call goes on.
    public func deviceReconnected(_ device: SessionID, user: UserID) async {
        await perform(book.deviceReturned(device, user: user))
        await tellOtherNodes(of: user, .deviceReturned(device, user: user))
    }

    /// A block ends any call between the two at once.
    public func blocked(_ blocked: UserID, by blocker: UserID) async {
        await perform(book.blocked(blocked, by: blocker, at: timers.now()))
        await tellOtherNodes(of: blocker, .blocked(blocked, by: blocker))
    }

    /// Ends every call: the server is stopping.
    public func shutdown() async {
        await perform(book.shutdown(at: timers.now()))
        await network.stop()
    }

    /// Calls by state, for /admin/status.
    public func counts() -> (ringing: Int, active: Int, ended: Int) { book.counts }

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
        let page = try await recorder.calls(of: user, before: position, limit: limit + 1)
        let shown = Array(page.prefix(limit))
        let next = page.count > limit ? shown.last.map { Base64URL.encode(Array("\(Int64(($0.startedAt.timeIntervalSince1970 * 1000).rounded())):\($0.id.rawValue)".utf8)) } : nil
        return (shown, next)
    }
}
