import Foundation
import TandemTestSupport
import Testing
import TandemProtocol
@testable import TandemServer

/// Exactly-once memory is bounded: a room forgets client ids it has not heard from for the TTL, and beyond
/// its cap the least recently seen; from then on an unknown client id may be a forgotten one.
@Suite struct RoomCoreProgressBoundTests {
    private func room(cap: Int = 10_000, ttl: Int64 = 30 * 86_400_000) -> RoomCore {
        var settings = RoomCore.Settings()
        settings.maxTrackedClients = cap
        settings.progressTTL = ttl
        return RoomCore.create(name: "lobby", epoch: "e1", settings: settings).0
    }

    private static func peer(_ index: Int) -> Peer { author(index).peer }

    private static func author(_ index: Int) -> SessionIdentity {
        SessionIdentity(user: "u\(index)", client: "c\(index)", role: .guest)
    }

    private let op = PatchOp.set(JSONPointer(tokens: ["n"]), 1)

    @Test func beyondTheCapTheLeastRecentlySeenAreForgotten() {
        var room = room(cap: 16) // slack 1: eviction runs once 18 client ids are known
        for index in 0..<17 { _ = room.submit(seq: 1, ops: [op], author: Self.author(index), now: 1) }
        #expect(room.progress.count == 17)
        #expect(!room.hasForgottenClients)
        #expect(!room.mayHaveForgotten(Peer(user: "x", client: "never-seen")), "while nothing was forgotten, unknown means new")
        // c0 writes again, so c1 and c2 are now the least recently seen.
        _ = room.submit(seq: 2, ops: [op], author: Self.author(0), now: 2)
        _ = room.submit(seq: 1, ops: [op], author: Self.author(17), now: 3)
        #expect(room.progress.count == 16)
        #expect(room.progress[Self.peer(1)] == nil && room.progress[Self.peer(2)] == nil)
        #expect(room.progress[Self.peer(0)]?.lastSeq == 2 && room.progress[Self.peer(17)] != nil)
        #expect(room.hasForgottenClients)
        #expect(room.mayHaveForgotten(Self.peer(1)) && room.mayHaveForgotten(Peer(user: "x", client: "brand-new")))
        #expect(!room.mayHaveForgotten(Self.peer(0)))
    }

    @Test func clientsNotHeardFromForTheTTLAreForgotten() {
        var room = room(ttl: 1_000)
        _ = room.submit(seq: 1, ops: [op], author: Self.author(1), now: 0)
        _ = room.submit(seq: 1, ops: [op], author: Self.author(2), now: 500)
        #expect(room.progress.count == 2 && !room.hasForgottenClients, "the sweep waits for the TTL to pass")
        _ = room.submit(seq: 1, ops: [op], author: Self.author(3), now: 1_200)
        #expect(room.progress[Self.peer(1)] == nil, "1,200 ms unseen, more than the TTL")
        #expect(room.progress[Self.peer(2)] != nil && room.progress[Self.peer(3)] != nil)
        #expect(room.hasForgottenClients)
        // A client that keeps writing is never forgotten.
        _ = room.submit(seq: 2, ops: [op], author: Self.author(2), now: 1_400)
        _ = room.submit(seq: 2, ops: [op], author: Self.author(3), now: 2_300)
        #expect(room.progress[Self.peer(2)] != nil, "heard from at 1,400, 900 ms before")
    }

    @Test func aRoomBroughtBackIsBoundedAndCountsUnseenTimeFromItsLoad() throws {
        var clients: [Peer: ClientProgress] = [:]
        for index in 0..<40 { clients[Self.peer(index)] = ClientProgress(lastSeq: 1, lastRev: Int64(index + 1)) }
        let record = RoomRecord(room: "lobby", epoch: "e1", rev: 40, snapshot: Array("{}".utf8), snapshotRev: 40,
                                patchesAfterSnapshot: [], clients: clients, oldestRev: 41)
        var settings = RoomCore.Settings()
        settings.maxTrackedClients = 16
        settings.progressTTL = 1_000
        let room = try RoomCore.restore(from: record, settings: settings, now: 5_000)
        #expect(room.progress.count == 16)
        #expect(room.progress[Self.peer(39)]?.lastSeen == 5_000 && room.progress[Self.peer(0)] == nil, "the newest writes are kept")
        #expect(room.hasForgottenClients)
    }

    @Test func storageIsToldWhichClientIdsWereForgottenAndWhen() throws {
        var room = room(cap: 16)
        for index in 0..<17 { _ = room.submit(seq: 1, ops: [op], author: Self.author(index), now: Int64(index)) }
        guard case .applied(_, let writes, _) = room.submit(seq: 1, ops: [op], author: Self.author(17), now: 100) else {
            Issue.record("not applied"); return
        }
        #expect(writes.count == 2)
        guard case .appendPatch(let patch) = writes.first, case .forgetClients("lobby", let clients) = writes.last else {
            Issue.record("unexpected writes \(writes)"); return
        }
        #expect(patch.time == 100)
        #expect(Set(clients) == [Self.peer(0), Self.peer(1)])
        // What a load forgets goes out with the room's next write.
        var stored: [Peer: ClientProgress] = [:]
        for index in 0..<20 { stored[Self.peer(index)] = ClientProgress(lastSeq: 1, lastRev: Int64(index + 1), lastSeen: 1) }
        let record = RoomRecord(room: "lobby", epoch: "e1", rev: 20, snapshot: Array("{}".utf8), snapshotRev: 20,
                                patchesAfterSnapshot: [], clients: stored, oldestRev: 21, forgotClients: true)
        var settings = RoomCore.Settings()
        settings.maxTrackedClients = 16
        var restored = try RoomCore.restore(from: record, settings: settings, now: 2)
        #expect(restored.hasForgottenClients)
        guard case .applied(_, let next, _) = restored.submit(seq: 2, ops: [op], author: Self.author(19), now: 3),
              case .forgetClients(_, let atLoad)? = next.last else { Issue.record("no forgetting write"); return }
        #expect(Set(atLoad) == Set((0..<4).map(Self.peer)))
        guard case .applied(_, let later, _) = restored.submit(seq: 3, ops: [op], author: Self.author(19), now: 4) else { return }
        #expect(later.count == 1, "told once")
    }

    @Test func aClusterReplicaKeepsEveryClient() {
        var settings = RoomCore.Settings()
        settings.maxTrackedClients = 1
        var clients: [Peer: ClientProgress] = [:]
        for index in 0..<5 { clients[Self.peer(index)] = ClientProgress(lastSeq: 1, lastRev: Int64(index)) }
        var replica = RoomCore.cluster(name: "lobby", epoch: "e1", rev: 5, document: Document(), progress: clients, settings: settings)
        try? replica.fold(PatchEvent(rev: 6, user: "u", client: "c9", seq: 1, ops: [op]))
        #expect(replica.progress.count == 6 && !replica.hasForgottenClients, "Redis holds a cluster room's progress")
    }

    /// 100,000 client ids that each write once keep at most the cap and its slack, the newest writers. (The
    /// memory figures in docs/OPERATIONS.md are this workload's RSS growth, with the default cap and with none.)
    @Test func memoryForAHundredThousandClientIdsStaysBounded() async throws {
        // Seconds of CPU in a debug build: on a thread of its own, so the cooperative pool keeps serving the
        // other suites' deadlines meanwhile.
        let start = room(), op = op
        let progress = try await offload { () -> [Peer: ClientProgress] in
            var room = start
            for index in 0..<100_000 { _ = room.submit(seq: 1, ops: [op], author: Self.author(index), now: Int64(index)) }
            return room.progress
        }
        #expect(progress.count <= 10_000 + 10_000 / 16)
        #expect(progress[Self.peer(99999)] != nil && progress[Self.peer(0)] == nil)
    }
}
