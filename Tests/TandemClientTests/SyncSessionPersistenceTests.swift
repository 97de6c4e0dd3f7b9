import Foundation
import Synchronization
import Testing
import TandemTesting
import TandemProtocol
@testable import TandemClient

/// A persistence that records every save and can hold saves back until released.
final class RecordingPersistence: SyncPersistence, @unchecked Sendable {
    let saved: SyncSavedState?
    private let state = Mutex<(saves: [SyncSavedState], holding: Bool, waiting: [CheckedContinuation<Void, Never>], failing: Bool)>(([], false, [], false))

    init(saved: SyncSavedState? = nil) { self.saved = saved }

    var saves: [SyncSavedState] { state.withLock { $0.saves } }

    /// Saves wait from now on until `release()`.
    func hold() { state.withLock { $0.holding = true } }

    func release() {
        let waiting = state.withLock { state in
            state.holding = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Saves fail from now on with a full disk.
    func failSaves() { state.withLock { $0.failing = true } }

    func save(_ saved: SyncSavedState) async throws(SyncPersistenceError) {
        let failing = state.withLock { $0.failing }
        if failing { throw .io(operation: "write", path: "state.json.tmp", errno: ENOSPC) }
        await withCheckedContinuation { continuation in
            let wait = state.withLock { state in
                if state.holding { state.waiting.append(continuation) }
                return state.holding
            }
            if !wait { continuation.resume() }
        }
        state.withLock { $0.saves.append(saved) }
    }
}

/// A session with persistence: restored at once, resumes with its seqs, binds every seq on disk before
/// the patch leaves, coalesces writes, rebases onto a new epoch, and goes on when the disk fails.
@Suite struct SyncSessionPersistenceTests {
    /// A started session on `persistence`, connected to the test's in-memory server.
    private func connected(_ persistence: RecordingPersistence) async throws -> (SyncSession, ServedConnection) {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" }, transport: transport,
                                  persistence: persistence)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let server = try await ServedConnection.accept(&connections)
        _ = try await server.handshake()
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        return (session, server)
    }

    private static let saved = SyncSavedState(
        clientID: "a1", nextSeq: 8, epoch: "e1", rev: 41, confirmed: ["tabIndex": 2],
        pending: [PendingPatch(seq: 7, ops: [Fixtures.set("/tabIndex", 3)], stage: .unsent),
                  PendingPatch(seq: nil, ops: [Fixtures.set("/note", "hi")], stage: .unsent)])

    @Test func aRestoredSessionShowsItsStateAtOnceAndResumesWithItsSeqs() async throws {
        let transport = InMemoryTransport()
        let persistence = RecordingPersistence(saved: Self.saved)
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "ignored", tokenProvider: { "t" }, transport: transport,
                                  persistence: persistence)
        #expect(session.clientID == "a1")
        // Before any network: the visible state is the confirmed one with the pending changes on top.
        #expect(await session.snapshot == SyncSnapshot(rev: 41, pending: 2, state: ["tabIndex": 3, "note": "hi"]))

        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let server = try await ServedConnection.accept(&connections)
        let hello = try await server.handshake(inMemoryWelcome(rev: 41, lastSeq: 6, replay: true))
        #expect(hello.client == "a1" && hello.resume == ResumePoint(epoch: "e1", rev: 41))
        // Seq 7 goes out again with its seq; the never-sent patch gets the next one, 8.
        #expect(try await server.next() == .patch(seq: 7, ops: [Fixtures.set("/tabIndex", 3)], base: 41))
        #expect(try await server.next() == .patch(seq: 8, ops: [Fixtures.set("/note", "hi")], base: 41))
        #expect(persistence.saves.last?.pending.map(\.seq) == [7, 8], "seq 8 was bound on disk before it was sent")
        server.send(text: ServerMessage.ack(seq: 7, rev: 42, duplicate: false).encoded())
        server.send(text: ServerMessage.ack(seq: 8, rev: 43, duplicate: false).encoded())
        #expect(await session.drain(timeout: .seconds(10)))
        await session.flush()
        #expect(persistence.saves.last?.pending == [] && persistence.saves.last?.rev == 43)
        await session.stop()
    }

    @Test func aPatchWaitsForTheSaveThatBindsItsSeq() async throws {
        let persistence = RecordingPersistence()
        // Nothing saved yet: no seq is bound.
        persistence.hold()
        let (session, server) = try await connected(persistence)

        try await session.apply([Fixtures.set("/tabIndex", 1)])
        // Presence made after the patch overtakes it: the patch waits for its save, presence does not.
        await session.updatePresence(["name": "Alice"])
        #expect(try await server.next() == .presence(data: ["name": "Alice"]))
        #expect(persistence.saves.isEmpty)
        persistence.release()
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 1)], base: 0))
        #expect(persistence.saves.contains { $0.pending.first?.seq == 1 && $0.nextSeq == 2 + SyncSession.reservedSeqs })
        await session.stop()
    }

    @Test func aSaveReservesSeqsSoThePatchesAfterItGoAtOnce() async throws {
        let persistence = RecordingPersistence()
        let (session, server) = try await connected(persistence)
        await session.flush()
        #expect(persistence.saves.last?.nextSeq == 1 + SyncSession.reservedSeqs, "the engine's next seq and those reserved after it")

        persistence.hold()
        try await session.apply([Fixtures.set("/tabIndex", 1)])
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 1)], base: 0), "seq 1 is bound already")
        persistence.release()
        await session.stop()

        // A session restored from that save starts after the reserved seqs: none is bound twice.
        let restored = SyncEngine(restoring: try #require(persistence.saves.last))
        #expect(restored.nextSeq > 1)
    }

    @Test func aBurstOfScrollOffsetsIsNotWrittenOncePerChange() async throws {
        let persistence = RecordingPersistence()
        let (session, _) = try await connected(persistence)
        for offset in 1...600 {
            try await session.apply([Fixtures.set("/contentOffset", ["x": 0, "y": .number(Double(offset))])])
        }
        await session.flush()
        #expect(persistence.saves.count < 30, "\(persistence.saves.count) saves for 600 changes")
        #expect(persistence.saves.last.map { SyncEngine(restoring: $0).visible.root } == ["contentOffset": ["x": 0, "y": 600]])
        await session.stop()
    }

    @Test func pendingChangesAreRebasedOntoTheSnapshotOfANewEpoch() async throws {
        let transport = InMemoryTransport()
        let persistence = RecordingPersistence(saved: SyncSavedState(
            clientID: "a1", nextSeq: 1, epoch: "old", rev: 9, confirmed: ["tabIndex": 2],
            pending: [PendingPatch(seq: nil, ops: [Fixtures.set("/note", "offline")], stage: .unsent)]))
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" }, transport: transport,
                                  persistence: persistence)
        var connections = transport.connections.makeAsyncIterator()
        await session.start()
        let server = try await ServedConnection.accept(&connections)
        // The server lost that history: a new epoch and its state.
        _ = try await server.handshake(inMemoryWelcome(epoch: "new", rev: 3, state: ["tabIndex": 5]))
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/note", "offline")], base: 3))
        #expect(await session.snapshot.state == ["tabIndex": 5, "note": "offline"])
        await session.stop()
    }

    @Test func aFailingDiskIsReportedAndTheSessionGoesOn() async throws {
        let persistence = RecordingPersistence()
        let (session, server) = try await connected(persistence)
        let events = StreamLog(session.events)
        persistence.failSaves()
        try await session.apply([Fixtures.set("/tabIndex", 1)])
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 1)], base: 0))
        #expect(await eventually { events.all.contains { if case .persistenceFailed(.io(_, _, ENOSPC)) = $0 { true } else { false } } })
        await session.stop()
    }

    @Test func aSessionOnAFolderSurvivesItsEnd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-session-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let transport = InMemoryTransport()
            transport.failNextAttempts(with: Array(repeating: .timeout, count: 1000))
            let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" }, transport: transport,
                                      persistence: try FileSyncPersistence(folder: folder))
            try await session.apply([Fixtures.set("/tabIndex", 4)])
            await session.stop()
        }
        let reopened = try FileSyncPersistence(folder: folder)
        #expect(reopened.saved?.pending.map(\.ops) == [[Fixtures.set("/tabIndex", 4)]])
        let restored = SyncSession(url: "ws://x/v1/sync", clientID: "other", tokenProvider: { "t" }, transport: InMemoryTransport(),
                                   persistence: reopened)
        #expect(await restored.snapshot.state == ["tabIndex": 4])
    }
}
