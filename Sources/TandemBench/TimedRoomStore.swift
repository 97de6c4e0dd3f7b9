import Foundation
import TandemProtocol
import TandemServer

/// A `RoomStore` that forwards to another and measures the time spent in `apply` (the SQLite
/// transaction), so the storage benchmark can split a patch's cost between the database and the
/// queue/producer machinery around it. Used on the commit queue's thread only.
final class TimedRoomStore: RoomStore, @unchecked Sendable {
    private let base: any RoomStore
    private(set) var applyNanoseconds: UInt64 = 0
    private(set) var transactions = 0

    init(_ base: any RoomStore) {
        self.base = base
    }

    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? { try base.loadRoom(room) }

    func apply(_ writes: [StorageWrite]) throws(StorageError) {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            applyNanoseconds &+= DispatchTime.now().uptimeNanoseconds &- start
            transactions += 1
        }
        try base.apply(writes)
    }

    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] {
        try base.patches(room: room, after: after, limit: limit)
    }

    func head(of room: String) throws(StorageError) -> StoredHead? {
        try base.head(of: room)
    }

    func snapshot(room: String, atOrBefore rev: Int64) throws(StorageError) -> StoredSnapshot? {
        try base.snapshot(room: room, atOrBefore: rev)
    }

    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? {
        try base.revision(room: room, author: author, seq: seq)
    }

    func invites() throws(StorageError) -> [StoredInvite] { try base.invites() }

    func denials() throws(StorageError) -> [StoredDenial] { try base.denials() }
}
