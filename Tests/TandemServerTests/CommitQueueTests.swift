import Foundation
import Synchronization
import TandemWire
import Testing
import TandemProtocol
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
    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? { try inner.revision(room: room, author: author, seq: seq) }
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

/// Accepts every write and records, in commit order, the (room, rev) of each appended patch.
private final class RecordingStore: RoomStore, @unchecked Sendable {
    let applied = Mutex<[String]>([])

    func loadRoom(_ room: String) throws(StorageError) -> RoomRecord? { nil }
    func patches(room: String, after: Int64, limit: Int) throws(StorageError) -> [StoredPatch] { [] }
    func revision(room: String, author: Peer, seq: Int64) throws(StorageError) -> Int64? { nil }
    func invites() throws(StorageError) -> [StoredInvite] { [] }
    func denials() throws(StorageError) -> [StoredDenial] { [] }
    func apply(_ writes: [StorageWrite]) throws(StorageError) {
        let names = writes.compactMap { write -> String? in
            if case .appendPatch(let patch) = write { return "\(patch.room)/\(patch.rev)" }
            return nil
        }
        applied.withLock { $0 += names }
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

    @Test(arguments: [true, false])
    func aWriteSubmittedOnAnEventLoopIsCommittedByThatLoopAfterTheSubmitterReturns(onLoops: Bool) async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let queue = CommitQueue(store: InMemoryRoomStore(), stages: onLoops ? EventLoopCommitStages() : nil)
        defer { queue.shutdown() }
        let submitterReturned = Mutex(false)
        let seen = Mutex<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                queue.write([.createRoom(room: "lobby", epoch: "e", snapshot: Array("{}".utf8))]) { result in
                    seen.withLock { $0.append("create \(loop.inEventLoop) \(submitterReturned.withLock { $0 })") }
                }
                queue.write([self.patch(1)]) { result in
                    if case .success = result { seen.withLock { $0.append("patch \(loop.inEventLoop)") } }
                    done.resume()
                }
                // The room's lock is held around `write`: a completion must never run inside it.
                submitterReturned.withLock { $0 = true }
            }
        }
        if onLoops {
            #expect(seen.withLock { $0 } == ["create true true", "patch true"])
        } else {
            // The queue's own thread commits, whenever it gets there.
            #expect(seen.withLock { $0 }.map { $0.split(separator: " ").prefix(2).joined(separator: " ") } == ["create false", "patch false"])
        }
    }

    @Test func completionsFollowCommitOrderWhenLoopsAndThreadsSubmitAtOnce() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let store = RecordingStore()
        let queue = CommitQueue(store: store, maxBatch: 7, stages: EventLoopCommitStages())
        let completed = Mutex<[String]>([])
        let perSubmitter = 300
        let done = DispatchGroup()
        // Entered up front: a submitter that has not started yet must not let the wait end early.
        for _ in 0..<(4 * perSubmitter) { done.enter() }
        @Sendable func submit(_ name: String) {
            for rev in Int64(1)...Int64(perSubmitter) {
                queue.write([patch(rev, room: name)]) { result in
                    if case .success = result { completed.withLock { $0.append("\(name)/\(rev)") } }
                    done.leave()
                }
            }
        }
        // Two loops submit from their threads, in several iterations each; two plain threads at the same time.
        for (index, loop) in [group.next(), group.next()].enumerated() {
            for chunk in 0..<6 {
                loop.execute {
                    for rev in Int64(chunk * 50 + 1)...Int64(chunk * 50 + 50) {
                        queue.write([self.patch(rev, room: "loop\(index)")]) { result in
                            if case .success = result { completed.withLock { $0.append("loop\(index)/\(rev)") } }
                            done.leave()
                        }
                    }
                }
            }
        }
        let threads = (0..<2).map { index in Thread { submit("thread\(index)") } }
        for thread in threads { thread.start() }
        await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
            Thread { done.wait(); resume.resume() }.start()
        }
        let order = completed.withLock { $0 }
        #expect(order.count == 4 * perSubmitter)
        #expect(order == store.applied.withLock { $0 })
        for submitter in ["loop0", "loop1", "thread0", "thread1"] {
            let revs = order.filter { $0.hasPrefix(submitter + "/") }.map { Int64($0.split(separator: "/")[1])! }
            #expect(revs == Array(1...Int64(perSubmitter)), "\(submitter)'s completions out of order")
        }
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

    /// A room submits under its own lock, and its completion takes that lock again: a refusal after shutdown
    /// must not run on the submitter's stack (it would re-enter the lock), and refusals keep submission order.
    @Test func refusalsAfterShutdownRunOffTheSubmittersStackInOrder() async {
        let queue = CommitQueue(store: InMemoryRoomStore())
        queue.shutdown()
        let roomLock = Mutex(())
        let refusals = Mutex<[Int64]>([])
        let submitter = Mutex<pthread_t?>(nil)
        let onSubmittersStack = Atomic(false)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            roomLock.withLock { _ in
                submitter.withLock { $0 = pthread_self() }
                for rev in Int64(1)...20 {
                    queue.write([patch(rev)]) { result in
                        // On the submitter's stack the room's lock would be taken twice: note it instead.
                        if let thread = submitter.withLock({ $0 }), pthread_equal(thread, pthread_self()) != 0 {
                            onSubmittersStack.store(true, ordering: .sequentiallyConsistent)
                        } else {
                            roomLock.withLock { _ in }
                        }
                        let count = refusals.withLock { refused in
                            if case .failure(.shutDown) = result { refused.append(rev) }
                            return refused.count
                        }
                        if count == 20 { done.resume() }
                    }
                }
                submitter.withLock { $0 = nil }
            }
        }
        let reentered = onSubmittersStack.load(ordering: .sequentiallyConsistent)
        let refused = refusals.withLock { $0 }
        #expect(!reentered)
        #expect(refused == Array(1...20))
    }
}
