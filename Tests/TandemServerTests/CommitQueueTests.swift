import Foundation
import Synchronization
import Testing
@testable import TandemServer

/// Wraps a store, records the size of every `apply`, and can hold the first apply until released.
private final class SpyStore: RoomStore {
    let inner = InMemoryRoomStore()
    let batchSizes = Mutex<[Int]>([])
    let firstApplyStarted = DispatchSemaphore(value: 0)
    let releaseFirstApply = DispatchSemaphore(value: 0)
    private var holdFirst: Bool

    init(holdFirst: Bool) { self.holdFirst = holdFirst }

    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? { try inner.loadRoom(room) }
    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] { try inner.patches(room: room, after: after, limit: limit) }
    func revision(room: String, client: String, seq: Int64) throws(StorageError) -> Int64? { try inner.revision(room: room, client: client, seq: seq) }
    func invites() throws(StorageError) -> [StoredInvite] { try inner.invites() }
    func denials() throws(StorageError) -> [StoredDenial] { try inner.denials() }
    func apply(_ writes: [StorageWrite]) throws(StorageError) {
        if holdFirst {
            holdFirst = false
            firstApplyStarted.signal()
            releaseFirstApply.wait()
        }
        batchSizes.withLock { $0.append(writes.count) }
        try inner.apply(writes)
    }
}

/// The stored rev of room "lobby", read through the queue (so after every earlier write).
private func currentRev(_ queue: CommitQueue) async throws -> Int64? {
    try await queue.read { (store) throws(StorageError) in try store.loadRoom("lobby")?.rev }
}

@Suite struct CommitQueueTests {
    private func patch(_ rev: Int64, room: String = "lobby") -> StorageWrite {
        .appendPatch(StoredPatch(room: room, rev: rev, user: "u", client: "c", seq: rev, ops: Array("[]".utf8)))
    }

    @Test func writesThatQueueDuringACommitAreCommittedTogetherAndCompleteInOrder() async throws {
        let store = SpyStore(holdFirst: true)
        let queue = CommitQueue(store: store)
        let order = Mutex<[Int64]>([])
        queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { _ in }
        store.firstApplyStarted.wait()
        let done = DispatchGroup()
        for rev in Int64(1)...100 {
            done.enter()
            queue.write([patch(rev)]) { result in
                if case .success = result { order.withLock { $0.append(rev) } }
                done.leave()
            }
        }
        store.releaseFirstApply.signal()
        done.wait()
        #expect(order.withLock { $0 } == Array(1...100))
        #expect(store.batchSizes.withLock { $0 } == [1, 100])
        #expect(try await currentRev(queue) == 100)
        queue.shutdown()
    }

    @Test func aCommittedBatchsCompletionsRunInsideOneDeliverCall() async throws {
        let store = SpyStore(holdFirst: true)
        let log = Mutex<[String]>([])
        let queue = CommitQueue(store: store) { body in
            log.withLock { $0.append("begin") }
            body()
            log.withLock { $0.append("end") }
        }
        queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { _ in log.withLock { $0.append("created") } }
        // Wait off the cooperative pool until the first commit is held, so the next three batch up.
        await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
            let started = store.firstApplyStarted
            Thread { started.wait(); resume.resume() }.start()
        }
        for rev in Int64(1)...3 {
            queue.write([patch(rev)]) { _ in log.withLock { $0.append("ack \(rev)") } }
        }
        store.releaseFirstApply.signal()
        #expect(try await currentRev(queue) == 3)
        #expect(log.withLock { $0 } == ["begin", "created", "end", "begin", "ack 1", "ack 2", "ack 3", "end"])
        queue.shutdown()
    }

    @Test func aFailingJobFailsAloneInsideABatch() async throws {
        let store = SpyStore(holdFirst: true)
        let queue = CommitQueue(store: store)
        queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { _ in }
        store.firstApplyStarted.wait()
        let results = Mutex<[String: Result<Void, StorageError>]>([:])
        let done = DispatchGroup()
        for (name, write) in [("good1", patch(1)), ("bad", patch(1, room: "ghost")), ("good2", patch(2))] {
            done.enter()
            queue.write([write]) { result in
                results.withLock { $0[name] = result }
                done.leave()
            }
        }
        store.releaseFirstApply.signal()
        done.wait()
        let outcome = results.withLock { $0 }
        #expect((try? outcome["good1"]?.get()) != nil)
        #expect((try? outcome["good2"]?.get()) != nil)
        #expect(throws: StorageError.unknownRoom("ghost")) { try outcome["bad"]?.get() }
        #expect(try await currentRev(queue) == 2)
        queue.shutdown()
    }

    @Test func readsSeeEveryWriteSubmittedBeforeThem() async throws {
        let queue = CommitQueue(store: InMemoryRoomStore())
        queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { _ in }
        for rev in Int64(1)...10 { queue.write([patch(rev)]) { _ in } }
        #expect(try await currentRev(queue) == 10)
        queue.shutdown()
    }

    @Test func shutdownFinishesQueuedWorkThenRefusesMore() async throws {
        let store = InMemoryRoomStore()
        let queue = CommitQueue(store: store)
        let committed = Mutex(0)
        queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { _ in }
        for rev in Int64(1)...50 {
            queue.write([patch(rev)]) { result in if case .success = result { committed.withLock { $0 += 1 } } }
        }
        queue.shutdown()
        #expect(committed.withLock { $0 } == 50)
        await #expect(throws: StorageError.shutDown) {
            try await queue.write([patch(51)])
        }
    }
}
