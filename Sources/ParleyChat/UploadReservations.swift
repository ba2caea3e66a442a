import ParleyCore
import Synchronization

/// Uploads under way, per user, on this node. The quota is settled for good only when an upload
/// is stored; until then each upload holds the bytes it may still write against what is left of
/// it, so that uploads in parallel cannot together stage more than the quota has room for. And a
/// user has only so many under way at once, however small: each holds a connection and a file.
final class UploadReservations: Sendable {
    struct Held {
        var uploads = 0
        var bytes = 0
        /// Moves on each time one of the user's uploads ends. An upload stored between reading the
        /// stored total and reserving would be counted in neither: a reading taken before the
        /// move is taken again.
        var ended = 0
    }

    /// What `reserve` answers: the bytes now held and what was left of the quota, or that an
    /// upload ended since the stored total was read (and the mark to read it again under).
    enum Reservation: Equatable {
        case held(bytes: Int, quotaLeft: Int)
        case stale(mark: Int)
    }

    private let held = Mutex<[UserID: Held]>([:])

    /// Takes one of `user`'s `places` for an upload (nothing reserved yet); nil when all are taken.
    /// Answers the `ended` mark to hand to `reserve`.
    func open(_ user: UserID, places: Int) -> Int? {
        held.withLock { held in
            var entry = held[user, default: Held()]
            guard entry.uploads < places else { return nil }
            entry.uploads += 1
            held[user] = entry
            return entry.ended
        }
    }

    /// Holds up to `wanted` bytes of what `quota` leaves once `stored` (read when `ended` was
    /// `mark`) and the user's other uploads under way have taken theirs.
    func reserve(_ user: UserID, mark: Int, stored: Int, quota: Int, wanted: Int) -> Reservation {
        held.withLock { held in
            guard var entry = held[user] else { return .held(bytes: 0, quotaLeft: 0) }   // not opened: holds nothing
            guard entry.ended == mark else { return .stale(mark: entry.ended) }
            let left = max(quota - stored - entry.bytes, 0)
            let bytes = min(left, wanted)
            entry.bytes += bytes
            held[user] = entry
            return .held(bytes: bytes, quotaLeft: left)
        }
    }

    /// Gives back an upload's place and its `bytes`, once it is stored (the stored total now has
    /// it) or refused.
    func close(_ user: UserID, bytes: Int) {
        held.withLock { held in
            guard var entry = held[user] else { return }
            entry.uploads -= 1
            entry.bytes -= bytes
            entry.ended += 1
            held[user] = entry.uploads > 0 ? entry : nil
        }
    }

    /// `user`'s uploads under way and the bytes of quota they hold.
    func holding(_ user: UserID) -> (uploads: Int, bytes: Int) {
        held.withLock { ($0[user]?.uploads ?? 0, $0[user]?.bytes ?? 0) }
    }
}

extension ChatErrors {
    /// `429 rate_limited`: the user already has `places` uploads under way on this node. A second
    /// is enough to wait: an upload of a few megabytes ends in about that.
    public static func tooManyUploads(_ places: Int) -> ParleyError {
        ParleyError(.rateLimited, code: "rate_limited",
                     "At most \(places) uploads at once; try again when one has finished", retryAfter: 1)
    }
}
