import Testing
import TandemProtocol
import TandemSynchronization
@testable import TandemServer

/// The parts a room is made of, each tested alone: who is in it (`RoomMembers`) and the writes waiting for
/// an outcome (`PendingWrites`).
@Suite("Room parts")
struct RoomPartsTests {
    private static func member(_ user: String, _ client: String, sink: RecordingSink, live: Bool = true, announced: Bool = true) -> RoomMembers.Member {
        RoomMembers.Member(identity: SessionIdentity(user: user, client: client, role: .guest), name: nil, data: .emptyObject, sink: sink,
                           connection: ConnectionID(1), phase: live ? .live : .pending, announced: announced)
    }

    @Test func participantsOfOtherNodesBecomeJoinPresenceAndLeaveEventsForTheLiveMembersHere() async {
        var members = RoomMembers()
        let alice = RecordingSink(), joining = RecordingSink()
        members[Peer(user: "alice", client: "a")] = Self.member("alice", "a", sink: alice)
        members[Peer(user: "zoe", client: "z")] = Self.member("zoe", "z", sink: joining, live: false, announced: false)
        let bob = Participant(user: "bob", client: "b", role: .guest)

        members.replaceElsewhere(with: [bob, bob, Participant(user: "alice", client: "a", role: .guest)])
        #expect(await alice.nextMessage() == .join(bob), "a participant here is never listed as elsewhere too")
        members.replaceElsewhere(with: [bob])
        var moved = bob
        moved.data = .object(["y": 1])
        members.replaceElsewhere(with: [moved])
        #expect(await alice.nextMessage() == .presence(bob.peer, data: .object(["y": 1])), "unchanged data sends nothing")
        members.replaceElsewhere(with: [])
        #expect(await alice.nextMessage() == .leave(bob.peer))
        #expect(joining.all.isEmpty, "a member not yet welcomed hears nothing")
        #expect(await alice.next(timeout: .milliseconds(50)) == nil)
    }

    @Test func theRoomListsEveryoneInOneOrderAndKnowsWhenSomeoneIsAlone() {
        var members = RoomMembers()
        members[Peer(user: "bob", client: "b")] = Self.member("bob", "b", sink: RecordingSink())
        members[Peer(user: "amy", client: "z")] = Self.member("amy", "z", sink: RecordingSink(), announced: false)
        #expect(members.isAlone(Peer(user: "bob", client: "b")), "an unannounced member does not count")
        #expect(!members.isAlone(nil))
        members.replaceElsewhere(with: [Participant(user: "amy", client: "a", role: .guest)])
        #expect(members.participants.map(\.client) == ["a", "b"], "by user, then client; here and elsewhere together")
        #expect(!members.isAlone(Peer(user: "bob", client: "b")))
        #expect(members.connections(of: "amy") == 1 && members.members(of: "bob").count == 1)
        #expect(members.takeFromElsewhere(Peer(user: "amy", client: "a")) && members.elsewhere.isEmpty)
    }

    @Test func anHTTPWriteGetsASeqAboveEveryOtherOfItsSubjectStillSequencing() {
        var writes = PendingWrites()
        #expect(writes.httpSeq(after: 0) == 1)
        #expect(writes.httpSeq(after: 0) == 2, "the first is still sequencing: its seq is taken")
        #expect(writes.httpSeq(after: 9) == 10, "the room applied up to 9 (another node's writes)")
    }

    @Test func aRoomThatStopsAnswersItsHTTPWritesByWhatIsKnownOfThem() {
        var writes = PendingWrites()
        let answers = Locked<[Int64: HTTPWriteOutcome]>([:])
        writes.holdHTTP(at: 3, PendingWrites.HTTPWrite(answer: { outcome in answers.withLock { $0[3] = outcome } }, durable: true))
        writes.holdHTTP(at: 4, PendingWrites.HTTPWrite(answer: { outcome in answers.withLock { $0[4] = outcome } }, durable: false))
        writes.holdHTTP(seq: 7) { outcome in answers.withLock { $0[7] = outcome } }
        writes.wait(author: Peer(user: "u", client: "c"), seq: 1, PendingWrites.Awaiting(connection: ConnectionID(1), arrival: .now, sent: nil))

        writes.closeAll(message: "gone")
        #expect(answers.withLock { $0 } == [3: .applied(rev: 3), 4: .failed("gone")],
                "durable at its rev: applied; a commit still pending: not known; one the sequencer decides: left to it")
        #expect(writes.waiting(author: Peer(user: "u", client: "c"), seq: 1) == nil)
        #expect(writes.takeHTTP(submittedWith: 7) != nil)
    }
}
