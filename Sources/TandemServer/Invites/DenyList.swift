import Synchronization

/// Users a host removed, per room, each refused until a unix second. Rooms consult it when a connection
/// joins; the API adds to it before closing the removed user's connections, so a join racing the removal is
/// either closed by it or refused by this list.
///
/// Thread-safe (one mutex); time is passed in.
final class DenyList: Sendable {
    private struct Key: Hashable {
        var room: String
        var user: String
    }

    private let entries: Mutex<[Key: Int64]>

    /// Starts with the stored deny entries.
    init(_ denials: [StoredDenial]) {
        entries = Mutex(Dictionary(denials.map { (Key(room: $0.room, user: $0.user), $0.until) }, uniquingKeysWith: max))
    }

    /// Refuses `user` in `room` until at least `until`; an existing later bound is kept. Returns the bound now
    /// in force.
    @discardableResult
    func deny(_ user: String, in room: String, until: Int64) -> Int64 {
        entries.withLock { entries in
            let key = Key(room: room, user: user)
            let bound = max(entries[key] ?? until, until)
            entries[key] = bound
            return bound
        }
    }

    /// The second until which `user` is refused in `room`, or nil when they may enter at `now`.
    func deniedUntil(_ user: String, in room: String, now: Int64) -> Int64? {
        entries.withLock { entries in
            let key = Key(room: room, user: user)
            guard let until = entries[key] else { return nil }
            guard now < until else {
                entries[key] = nil
                return nil
            }
            return until
        }
    }

    /// Drops the entries that ended by `now`; returns them (storage forgets them too).
    func expire(now: Int64) -> [StoredDenial] {
        entries.withLock { entries in
            let ended = entries.filter { now >= $0.value }
            for key in ended.keys { entries[key] = nil }
            return ended.map { StoredDenial(room: $0.key.room, user: $0.key.user, until: $0.value) }
        }
    }
}
