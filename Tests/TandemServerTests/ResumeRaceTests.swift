import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
@testable import TandemServer

/// A joiner whose resume is read from storage misses nothing released while the read was under way: the
/// welcome prepared at the read's rev is brought up to the room's rev before it goes out.
@Suite struct ResumeRaceTests {
    /// This server's sequencing, with rooms that hold `recent` patches in memory and whose history reads
    /// answer only when the test lets them.
    final class HeldHistorySequencing: SequencingService, @unchecked Sendable {
        let inner: LocalSequencing
        let held = Mutex<[@Sendable () -> Void]>([])
        let reads = Atomic<Int>(0)

        init(commits: CommitQueue, settings: RoomSettings, recent: Int) {
            var settings = settings
            settings.core.recentCapacity = recent
            inner = LocalSequencing(commits: commits, settings: settings, logger: .discarding)
        }

        var summary: String { "held" }
        var nodeID: String? { nil }
        func load(_ room: String, completion: @escaping @Sendable (Result<(RoomCore, any RoomSequencer), StorageError>) -> Void) {
            inner.load(room) { [self] result in completion(result.map { core, sequencer in (core, HeldHistorySequencer(inner: sequencer, owner: self)) }) }
        }
        func unload(_ room: String) { inner.unload(room) }
        func check() async throws(ServerStartError) {}
        func cancel() { inner.cancel() }
        func shutdown() async { await inner.shutdown() }

        /// Hands the history reads made so far their answers.
        func releaseReads() {
            for answer in held.withLock({ held in defer { held = [] }; return held }) { answer() }
        }
    }

    struct HeldHistorySequencer: RoomSequencer {
        let inner: any RoomSequencer
        let owner: HeldHistorySequencing
        func attach(_ room: any ReplicatedRoom) { inner.attach(room) }
        func submit(_ patch: SubmittedPatch, core: inout RoomCore, outcomes: any RoomOutcomes) -> SubmitDecision {
            inner.submit(patch, core: &core, outcomes: outcomes)
        }
        func history(after: Int64, through: Int64, completion: @escaping @Sendable (Result<[PatchEvent], SequencingError>) -> Void) {
            inner.history(after: after, through: through) { [owner] result in
                owner.held.withLock { $0.append { completion(result) } }
                owner.reads.add(1, ordering: .relaxed)
            }
        }
        func publish(_ signal: ServerMessage) { inner.publish(signal) }
        func participantLeft(_ peer: Peer) { inner.participantLeft(peer) }
    }

    @Test func aPatchReleasedWhileTheResumeIsReadFromStorageReachesTheJoinerInItsWelcome() async throws {
        let sequencing = Mutex<HeldHistorySequencing?>(nil)
        let server = ServerHarness(sequencing: { commits, settings in
            let made = HeldHistorySequencing(commits: commits, settings: settings, recent: 4)
            sequencing.withLock { $0 = made }
            return made
        })
        let held = try #require(sequencing.withLock { $0 })
        let (alice, aliceSink, first) = await server.join(user: "alice", client: "a1")
        let epoch = try #require(first?.epoch)
        for seq in Int64(1)...10 {
            alice.send(.patch(seq: seq, ops: [.set(JSONPointer(tokens: ["n"]), .number(Double(seq)))]))
            #expect(await aliceSink.nextMessage() == .ack(seq: seq, rev: seq, duplicate: false))
        }
        // Bob resumes from rev 2: memory holds revs 7…10, so revs 3…10 are read from storage — and held.
        let (bob, bobSink) = server.connect()
        bob.send(.hello(Hello(token: server.token(user: "bob"), client: "b1", resume: ResumePoint(epoch: epoch, rev: 2))))
        try await eventually("the storage read of revs 3…10") { held.reads.load(ordering: .relaxed) == 1 }
        // Meanwhile rev 11 is released.
        alice.send(.patch(seq: 11, ops: [.set(JSONPointer(tokens: ["n"]), 11)]))
        #expect(await aliceSink.nextMessage(ofType: "ack") == .ack(seq: 11, rev: 11, duplicate: false))
        held.releaseReads()
        guard case .welcome(let welcome)? = await bobSink.nextMessage(), case .replay(let events) = welcome.sync else {
            Issue.record("no replay welcome"); return
        }
        #expect(welcome.rev == 11)
        #expect(events.map(\.rev) == Array(3...11), "every patch after the resume point, the one released meanwhile included")
        #expect(await bobSink.staysQuiet(), "and nothing twice")
    }
}
