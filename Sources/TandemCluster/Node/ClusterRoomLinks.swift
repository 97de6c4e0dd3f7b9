import TandemSynchronization
import TandemServer

/// The links of the rooms a node serves, by name. Thread-safe; its lock is held only around the map
/// (and a link's queue count), so rooms may look links up under their own lock.
final class ClusterRoomLinks: Sendable {
    private let links = Locked<[String: ClusterRoomLink]>([:])

    /// The link of `room`, made on first use.
    func link(for room: String) -> ClusterRoomLink {
        links.withLock { links in
            if let link = links[room] { return link }
            let link = ClusterRoomLink(name: room)
            links[room] = link
            return link
        }
    }

    /// Operations queued or running over all rooms (loads, submissions, releases).
    var pendingWork: Int {
        links.withLock { Array($0.values) }.reduce(0) { $0 + $1.queue.pendingCount }
    }

    /// Detaches every link (shutdown), so no room stays referenced.
    func detachAll() {
        for link in links.withLock({ Array($0.values) }) { link.detach() }
    }

    /// The rooms attached right now.
    func rooms() -> [any ReplicatedRoom] {
        links.withLock { Array($0.values) }.compactMap(\.room)
    }

    /// Forgets `link` unless other work for its room is queued behind the caller's (that work keeps
    /// using it). Call it from the link's own queue.
    func remove(_ link: ClusterRoomLink) {
        links.withLock { links in
            // The queue's lock is a leaf: no lock cycle.
            if links[link.name] === link, link.queue.pendingCount <= 1 { links[link.name] = nil }
        }
    }
}
