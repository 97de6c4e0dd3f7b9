import Testing
import TandemProtocol
@testable import TandemServer

/// What a read learns from the records the database does not hold yet.
@Suite struct UnstoredWritesTests {
    private func patch(_ rev: Int64, room: String = "lobby", seq: Int64? = nil) -> StorageWrite {
        .appendPatch(StoredPatch(room: room, rev: rev, user: "u", client: "c", seq: seq ?? rev, ops: []))
    }

    private func record(_ position: UInt64, _ writes: StorageWrite...) -> JournalRecord {
        JournalRecord(position: position, writes: writes)
    }

    @Test func onlyRecordsAfterTheSnapshotsPositionCount() {
        var unstored = UnstoredWrites()
        unstored.append(record(1, patch(1)))
        unstored.append(record(2, patch(2), patch(1, room: "hall")))
        unstored.append(record(3, patch(3)))
        #expect(unstored.touchesRoom("hall", after: 1))
        #expect(!unstored.touchesRoom("hall", after: 2))
        #expect(unstored.revision(room: "lobby", author: Peer(user: "u", client: "c"), seq: 2, after: 1) == 2)
        #expect(unstored.revision(room: "lobby", author: Peer(user: "u", client: "c"), seq: 2, after: 2) == nil)
        // Stored rows 1...1; the unstored ones after the snapshot at position 1 continue them.
        let stored = [StoredPatch(room: "lobby", rev: 1, user: "u", client: "c", seq: 1, ops: [])]
        #expect(unstored.patches(of: "lobby", after: 0, limit: 10, stored: stored, position: 1).map(\.rev) == [1, 2, 3])
        #expect(unstored.patches(of: "lobby", after: 0, limit: 2, stored: stored, position: 1).map(\.rev) == [1, 2])
        // A record the snapshot already holds is not counted twice.
        #expect(unstored.patches(of: "lobby", after: 0, limit: 10, stored: stored + [StoredPatch(room: "lobby", rev: 2, user: "u", client: "c", seq: 2, ops: [])],
                                 position: 2).map(\.rev) == [1, 2, 3])
    }

    @Test func recreatingOrSnapshottingARoomReshapesItsHistory() {
        var unstored = UnstoredWrites()
        unstored.append(record(5, .snapshot(room: "lobby", rev: 9, state: [], keepFrom: 7)))
        unstored.append(record(6, .createRoom(room: "hall", epoch: "e", snapshot: [])))
        unstored.append(record(7, .saveInvite(StoredInvite(code: "x", room: "hall", role: "viewer", createdBy: "u", createdAt: 0,
                                                           expiresAt: 1, usesLeft: 1, revoked: false))))
        #expect(unstored.reshapes("lobby", after: 4))
        #expect(!unstored.reshapes("lobby", after: 5))
        #expect(unstored.reshapes("hall", after: 5))
        #expect(!unstored.touchesRoom("hall", after: 6))
        #expect(unstored.touchesInvites(after: 6) && !unstored.touchesInvites(after: 7))
        #expect(!unstored.touchesDenials(after: 0))
    }

    @Test func forgettingDropsWhatTheDatabaseHoldsAndKeepsTheRest() {
        var unstored = UnstoredWrites()
        for position in UInt64(1)...5_000 { unstored.append(record(position, patch(Int64(position)))) }
        unstored.forget(through: 3_000)
        #expect(unstored.count == 2_000)
        #expect(!unstored.touchesRoom("lobby", after: 5_000))
        #expect(unstored.revision(room: "lobby", author: Peer(user: "u", client: "c"), seq: 3_001, after: 0) == 3_001)
        #expect(unstored.revision(room: "lobby", author: Peer(user: "u", client: "c"), seq: 2_999, after: 0) == nil)
        unstored.forget(through: 2_000)
        #expect(unstored.count == 2_000)
        unstored.forget(through: 5_000)
        #expect(unstored.count == 0)
        unstored.append(record(5_001, patch(5_001)))
        #expect(unstored.count == 1)
    }
}
