import TandemSynchronization

/// Users a host removed, per room, each refused until a host readmits them (`untilReadmitted`), or, for
/// entries an earlier release stored, until a unix second. `RoomAccess` consults it on every request and
/// rooms when a connection joins; the API adds to it before closing the removed user's connections, so a
/// join racing the removal is either closed by it or refused by this list.
///
/// Thread-safe (one mutex); time is passed in.
final class DenyList: Sendable {
    private struct Key: Hashable {
        var room: String
        var user: String
    }

    private let entries: Locked<[Key: Int64]>

    /// The bound of a removal that stands until a host readmits the user.
    static let untilReadmitted = Int64.max

    /// Starts with the stored deny entries.
    init(_ denials: [StoredDenial]) {
        entries = Locked(Dictionary(denials.map { (Key(room: $0.room, user: $0.user), $0.until) }, uniquingKeysWith: max))
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

    /// Lets `user` into `room` again; returns whether they were refused there.
    func readmit(_ user: String, in room: String) -> Bool {
        entries.withLock { $0.removeValue(forKey: Key(room: room, user: user)) != nil }
    }

    /// The users refused in `room` at `now`, by id.
    func removed(in room: String, now: Int64) -> [String] {
        entries.withLock { entries in entries.filter { $0.key.room == room && now < $0.value }.map(\.key.user).sorted() }
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

    /// Makes the list hold exactly `denials` (what the cluster shares), and returns the entries it did not
    /// hold before: their users' connections here are to be closed.
    func mirror(_ denials: [StoredDenial]) -> [StoredDenial] {
        let shared = Dictionary(denials.map { (Key(room: $0.room, user: $0.user), $0.until) }, uniquingKeysWith: max)
        return entries.withLock { entries in
            let added = shared.filter { entries[$0.key] == nil }
            entries = shared
            return added.map { StoredDenial(room: $0.key.room, user: $0.key.user, until: $0.value) }
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
