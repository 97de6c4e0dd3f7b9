import Dispatch
import Synchronization
import TandemProtocol
@testable import TandemServer

/// A store whose first commit of a patch waits until the test releases it (on the storage thread, never
/// the pool), so a test can act while a patch is applied in memory but not durable yet.
final class HeldCommitStore: RoomStore, @unchecked Sendable {
    let inner = InMemoryRoomStore()
    let commitStarted = Atomic<Bool>(false)
    let release = DispatchSemaphore(value: 0)

    func apply(_ writes: [StorageWrite]) throws(StorageError) {
        let appends = writes.contains { if case .appendPatch = $0 { true } else { false } }
        if appends, !commitStarted.exchange(true, ordering: .acquiringAndReleasing) { release.wait() }
        try inner.apply(writes)
    }
    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? { try inner.loadRoom(room) }
    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] { try inner.patches(room: room, after: after, limit: limit) }
    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? { try inner.revision(room: room, author: author, seq: seq) }
    func invites() throws(StorageError) -> [StoredInvite] { try inner.invites() }
    func denials() throws(StorageError) -> [StoredDenial] { try inner.denials() }
}
