import Dispatch
import Synchronization
import TandemProtocol
@testable import TandemServer

/// A store whose first room load waits until the test releases it (on the storage thread, never the pool).
final class HeldLoadStore: RoomStore, @unchecked Sendable {
    let inner = InMemoryRoomStore()
    let loadStarted = Atomic<Bool>(false)
    let release = DispatchSemaphore(value: 0)

    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? {
        if !loadStarted.exchange(true, ordering: .acquiringAndReleasing) { release.wait() }
        return try inner.loadRoom(room)
    }
    func apply(_ writes: [StorageWrite]) throws(StorageError) { try inner.apply(writes) }
    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] { try inner.patches(room: room, after: after, limit: limit) }
    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? { try inner.revision(room: room, author: author, seq: seq) }
    func invites() throws(StorageError) -> [StoredInvite] { try inner.invites() }
    func denials() throws(StorageError) -> [StoredDenial] { try inner.denials() }
}
