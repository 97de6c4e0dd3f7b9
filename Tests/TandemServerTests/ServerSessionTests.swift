import Synchronization
import Testing
import TandemProtocol
import TandemTestSupport
@testable import TandemServer

@Suite struct ServerSessionTests {
    private func set(_ path: String, _ value: JSONValue) -> PatchOp { .set(try! JSONPointer(parsing: path), value) }

    @Test func helloGetsAWelcomeWithStateIdentityParticipantsAndLimits() async throws {
        let server = ServerHarness()
        let (_, _, welcome) = await server.join(user: "alice", client: "a1", presence: ["name": "Alice"])
        let w = try #require(welcome)
        #expect(w.rev == 0)
        #expect(w.sync == .state(.emptyObject))
        #expect(w.lastSeq == 0)
        #expect(w.you == SessionIdentity(user: "alice", client: "a1", role: .host))
        #expect(w.participants == [Participant(user: "alice", client: "a1", role: .host, data: ["name": "Alice"])])
        #expect(w.heartbeat == HeartbeatSettings(interval: 10_000, timeout: 30_000))
        #expect(w.limits == SessionLimits(rate: 120, burst: 240, maxMessage: 65_536, maxOps: 100, maxDocument: 1_048_576))
        #expect(w.epoch.count == 16)
    }

    @Test func aPatchIsAckedToItsAuthorAndSentToTheOthers() async throws {
        let server = ServerHarness()
        let (alice, aliceSink, _) = await server.join(user: "alice", client: "a1")
        let (_, bobSink, _) = await server.join(user: "bob", client: "b1", role: .guest)
        #expect(await aliceSink.nextMessage(ofType: "join") == .join(Participant(user: "bob", client: "b1", role: .guest)))
        alice.send(.patch(seq: 1, ops: [set("/tabIndex", 2)]))
        #expect(await aliceSink.nextMessage() == .ack(seq: 1, rev: 1, duplicate: false))
        #expect(await bobSink.nextMessage() == .patch(PatchEvent(rev: 1, user: "alice", client: "a1", seq: 1, ops: [set("/tabIndex", 2)])))
    }

    /// Patches that arrive while the room loads wait in the session; the ones arriving while that queue
    /// is handed to the room must not overtake it (a later seq applied first turns an earlier one into a
    /// "duplicate" that is acked but never applied).
    @Test func patchesSentRightAfterHelloKeepTheirOrder() async throws {
        let server = ServerHarness(configuration: { var c = ServerConfiguration(); c.rateLimit = 0; return c }())
        let rooms = 40, patches = 30
        var sinks: [RecordingSink] = []
        for index in 0..<rooms {
            let (session, sink) = server.connect()
            session.send(.hello(Hello(token: server.token(user: "u\(index)", room: "r\(index)"), client: "c\(index)")))
            // No waiting for the welcome: the room is still loading on the storage thread meanwhile.
            for seq in 1...patches { session.send(.patch(seq: Int64(seq), ops: [set("/k\(seq)", .number(Double(seq)))])) }
            sinks.append(sink)
        }
        for (index, sink) in sinks.enumerated() {
            var acks: [ServerMessage] = []
            while acks.count < patches, let message = await sink.nextMessage(ofType: "ack", timeout: .seconds(30)) { acks.append(message) }
            #expect(acks == (1...patches).map { ServerMessage.ack(seq: Int64($0), rev: Int64($0), duplicate: false) }, "room r\(index)")
        }
    }

    @Test func concurrentWritersProduceOneContiguousOrderSeenByEveryone() async throws {
        let server = ServerHarness()
        let writers = 4, patchesEach = 25
        var sessions: [(ServerSession, RecordingSink)] = []
        for index in 0..<writers {
            let (session, sink, _) = await server.join(user: "u\(index)", client: "c\(index)")
            sessions.append((session, sink))
        }
        // Drain the join events so each sink holds only rev-ordered traffic from here on.
        for (index, (_, sink)) in sessions.enumerated() {
            for _ in 0..<(writers - 1 - index) { _ = await sink.nextMessage(ofType: "join") }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, (session, _)) in sessions.enumerated() {
                group.addTask {
                    for seq in 1...patchesEach { session.send(.patch(seq: Int64(seq), ops: [self.set("/w\(index)", .number(Double(seq)))])) }
                }
            }
        }
        let total = writers * patchesEach
        for (index, (_, sink)) in sessions.enumerated() {
            var revs: [Int64] = []
            var acked = 0
            while revs.count < total, let message = await sink.nextMessage() {
                switch message {
                case .ack(_, let rev, false, _): revs.append(rev); acked += 1
                case .patch(let event): revs.append(event.rev)
                default: Issue.record("unexpected \(message)")
                }
            }
            #expect(revs == Array(1...Int64(total)), "connection \(index) saw revs out of order or missing")
            #expect(acked == patchesEach)
        }
        // A late joiner converges to the same document.
        let (_, _, late) = await server.join(user: "late", client: "z")
        guard case .state(let state)? = late?.sync else { Issue.record("late joiner got no state"); return }
        let expected = JSONValue.object(Dictionary(uniqueKeysWithValues: (0..<writers).map { ("w\($0)", JSONValue.number(Double(patchesEach))) }))
        #expect(state == expected)
        #expect(late?.rev == Int64(total))
    }

    @Test func viewersAreRejectedAsForbidden() async throws {
        let server = ServerHarness()
        let (viewer, sink, _) = await server.join(user: "vera", client: "v1", role: .viewer)
        viewer.send(.patch(seq: 1, ops: [set("/n", 1)]))
        guard case .reject(1, .forbidden, _)? = await sink.nextMessage() else { Issue.record("viewer patch not rejected"); return }
        #expect(server.metrics.rejects.value("forbidden") == 1)
        // Presence is allowed for everyone.
        viewer.send(.presence(data: ["cursor": 3]))
        viewer.send(.ping(t: 1))
        #expect(await sink.nextMessage() == .pong(t: 1))
    }

    @Test(arguments: ["forged", "expired", "none"]) func badTokensAreRefusedWith4001(kind: String) async throws {
        let server = ServerHarness()
        let token: String
        switch kind {
        case "forged":
            let other = TokenVerifier(secret: Array("another-secret".utf8), hmac: FakeHMAC.mac, now: { 0 })
            token = other.mint(TokenClaims(sub: "mallory", room: "lobby", role: .host, exp: .max))
        case "expired":
            token = server.token(user: "alice", ttl: -1)
        default:
            let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
            let payload = Base64URL.encode(TokenClaims(sub: "mallory", room: "lobby", role: .host, exp: .max).jsonValue.serializedBytes())
            token = header + "." + payload + "."
        }
        let (session, sink) = server.connect()
        session.send(.hello(Hello(token: token, client: "m1")))
        guard case .closed(let code, .error(.unauthorized, _)?)? = await sink.next() else { Issue.record("not refused"); return }
        #expect(code == .badToken)
        #expect(sink.all.allSatisfy { if case .message(.welcome) = $0 { false } else { true } })
    }

    /// A token's header is the client's text: an `alg` that carries a line break and a terminal escape reaches
    /// the log in the refusal's reason, and must stay inside its one line there.
    @Test func aForgedAlgorithmIsLoggedOnOneEscapedLine() async throws {
        let lines = LineRecordingLogSink()
        let server = ServerHarness(logger: Logger(sink: lines, level: .info))
        let header = Base64URL.encode(Array(#"{"alg":"X\r\nlevel=error event=forged room=lobby \u001b[2J","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(TokenClaims(sub: "mallory", room: "lobby", role: .host, exp: .max).jsonValue.serializedBytes())
        let (session, sink) = server.connect()
        session.send(.hello(Hello(token: header + "." + payload + ".c2ln", client: "m1")))
        guard case .closed(.badToken, _)? = await sink.next() else { Issue.record("not refused"); return }
        let closed = lines.all.map { String(decoding: $0, as: UTF8.self) }.filter { $0.contains("event=session.closed") }
        #expect(closed.count == 1)
        #expect(lines.all.allSatisfy(isOneCleanLine))
        #expect(closed.first?.contains(#"reason="token algorithm \"X\r\nlevel=error event=forged room=lobby \u001B[2J\" is not accepted"#) == true,
                "\(closed)")
        #expect(closed.first?.hasPrefix("level=info event=session.closed ") == true)
    }

    @Test func theFirstMessageMustBeHello() async throws {
        let server = ServerHarness()
        let (session, sink) = server.connect()
        session.send(.ping(t: 1))
        guard case .closed(.policyViolation, .error(.helloRequired, _)?)? = await sink.next() else { Issue.record("not closed 1008"); return }
        let (garbage, garbageSink) = server.connect()
        garbage.receive(Array("not json".utf8))
        guard case .closed(.policyViolation, _)? = await garbageSink.next() else { Issue.record("not closed 1008"); return }
    }

    @Test func noHelloInTimeClosesWith4008() async throws {
        let server = ServerHarness()
        let (session, sink) = server.connect()
        server.scheduler.advance(by: .milliseconds(4_999))
        #expect(!sink.isClosed)
        server.scheduler.advance(by: .milliseconds(1))
        guard case .closed(.helloTimeout, .error(.helloTimeout, _)?)? = await sink.next() else { Issue.record("not closed 4008"); return }
        withExtendedLifetime(session) {}
    }

    @Test func aHelloInTimeCancelsTheTimer() async throws {
        let server = ServerHarness()
        let (_, sink, welcome) = await server.join(user: "alice", client: "a1")
        #expect(welcome != nil)
        server.scheduler.advance(by: .seconds(10))
        #expect(!sink.isClosed)
    }

    @Test func badMessagesGetAnErrorAndTheConnectionStays() async throws {
        let server = ServerHarness()
        let (session, sink, _) = await server.join(user: "alice", client: "a1")
        session.receive(Array("{not json".utf8))
        guard case .error(.badJSON, _)? = await sink.nextMessage() else { Issue.record("no bad_json error"); return }
        session.receive(Array(#"{"type":"teleport"}"#.utf8))
        guard case .error(.unknownType, _)? = await sink.nextMessage() else { Issue.record("no unknown_type error"); return }
        session.receive(Array(#"{"type":"patch","ops":[]}"#.utf8))
        guard case .error(.badMessage, _)? = await sink.nextMessage() else { Issue.record("no bad_message error"); return }
        session.receive(Array(#"{"type":"patch","seq":1,"ops":[{"op":"move","path":"/a"}]}"#.utf8))
        guard case .reject(1, .invalidOp, _)? = await sink.nextMessage() else { Issue.record("no invalid_op reject"); return }
        session.send(.patch(seq: 1, ops: [set("/a/b/c", 1)]))
        #expect(await sink.nextMessage() == .ack(seq: 1, rev: 1, duplicate: false))
        session.send(.patch(seq: 2, ops: [set("/a/b/c/d", 1)]))
        guard case .reject(2, .invalidPath, _)? = await sink.nextMessage() else { Issue.record("no invalid_path reject"); return }
        session.send(.hello(Hello(token: server.token(user: "alice"), client: "a1")))
        guard case .error(.unexpectedHello, _)? = await sink.nextMessage() else { Issue.record("no unexpected_hello"); return }
        session.send(.ping(t: 42))
        #expect(await sink.nextMessage() == .pong(t: 42))
        #expect(!sink.isClosed)
    }

    @Test func floodsAreClosedWith4029AndNothingAfterTheLimitIsApplied() async throws {
        var configuration = ServerConfiguration()
        configuration.rateLimit = 10
        configuration.rateBurst = 5
        let server = ServerHarness(configuration: configuration)
        let (flooder, sink, _) = await server.join(user: "alice", client: "a1") // hello took one token
        let (_, observer, _) = await server.join(user: "bob", client: "b1")
        for seq in 1...10 { flooder.send(.patch(seq: Int64(seq), ops: [set("/n", .number(Double(seq)))])) }
        #expect(await sink.nextClose() == .rateLimited)
        // The others keep being served, and only the patches before the limit were applied.
        let (_, _, late) = await server.join(user: "carol", client: "c1")
        guard case .state(let state)? = late?.sync else { Issue.record("no state"); return }
        #expect(state == ["n": 4])
        #expect(!observer.isClosed)
    }

    @Test func aResentSeqIsAckedAsDuplicateWithItsOriginalRev() async throws {
        let server = ServerHarness()
        let (alice, sink, _) = await server.join(user: "alice", client: "a1")
        alice.send(.patch(seq: 1, ops: [set("/n", 1)]))
        alice.send(.patch(seq: 2, ops: [set("/n", 2)]))
        _ = await sink.nextMessage(); _ = await sink.nextMessage()
        alice.connectionClosed(clean: false)
        let (again, againSink, welcome) = await server.join(user: "alice", client: "a1", resume: ResumePoint(epoch: "x", rev: 0))
        #expect(welcome?.lastSeq == 2)
        again.send(.patch(seq: 1, ops: [set("/n", 99)]))
        #expect(await againSink.nextMessage() == .ack(seq: 1, rev: 1, duplicate: true))
        again.send(.patch(seq: 3, ops: [set("/n", 3)]))
        #expect(await againSink.nextMessage() == .ack(seq: 3, rev: 3, duplicate: false))
    }

    @Test func resumeReplaysExactlyTheMissedPatchesOrSendsASnapshot() async throws {
        let server = ServerHarness()
        let (alice, aliceSink, first) = await server.join(user: "alice", client: "a1")
        let epoch = try #require(first?.epoch)
        for seq in 1...3 { alice.send(.patch(seq: Int64(seq), ops: [set("/n", .number(Double(seq)))])) }
        for _ in 1...3 { _ = await aliceSink.nextMessage() }
        let (_, _, resumed) = await server.join(user: "bob", client: "b1", resume: ResumePoint(epoch: epoch, rev: 1))
        guard case .replay(let events)? = resumed?.sync else { Issue.record("no replay"); return }
        #expect(events.map(\.rev) == [2, 3])
        #expect(resumed?.rev == 3)
        let (_, _, stale) = await server.join(user: "carol", client: "c1", resume: ResumePoint(epoch: "another-epoch", rev: 1))
        #expect(stale?.sync == .state(["n": 3]))
        #expect(server.metrics.resumes.value == 1)
        #expect(server.metrics.snapshots.value == 2)
    }

    @Test func aDroppedParticipantIsKeptForTheGracePeriod() async throws {
        let server = ServerHarness()
        let (alice, _, _) = await server.join(user: "alice", client: "a1")
        let (_, bobSink, _) = await server.join(user: "bob", client: "b1")
        alice.connectionClosed(clean: false)
        server.scheduler.advance(by: .seconds(4))
        #expect(await bobSink.staysQuiet())
        // Reconnect within the grace period: no leave, no join.
        let (again, _, welcome) = await server.join(user: "alice", client: "a1")
        #expect(welcome?.participants.map(\.client) == ["a1", "b1"])
        server.scheduler.advance(by: .seconds(10))
        #expect(await bobSink.staysQuiet())
        // Drop again and stay away: leave after the grace period.
        again.connectionClosed(clean: false)
        server.scheduler.advance(by: .seconds(5))
        #expect(await bobSink.nextMessage() == .leave(Peer(user: "alice", client: "a1")))
    }

    @Test func aCleanCloseLeavesAtOnce() async throws {
        let server = ServerHarness()
        let (alice, _, _) = await server.join(user: "alice", client: "a1")
        let (_, bobSink, _) = await server.join(user: "bob", client: "b1")
        alice.connectionClosed(clean: true)
        #expect(await bobSink.nextMessage() == .leave(Peer(user: "alice", client: "a1")))
    }

    @Test func aNewConnectionWithTheSameClientIDReplacesTheOld() async throws {
        let server = ServerHarness()
        let (_, oldSink, _) = await server.join(user: "alice", client: "a1")
        let (_, bobSink, _) = await server.join(user: "bob", client: "b1")
        let (_, _, welcome) = await server.join(user: "alice", client: "a1")
        #expect(welcome != nil)
        #expect(await oldSink.nextClose() == .replaced)
        #expect(await bobSink.staysQuiet())
        // Another user's connection with that client id is another participant: it replaces no one.
        let (_, mallorySink, malloryWelcome) = await server.join(user: "mallory", client: "a1")
        #expect(malloryWelcome?.you == SessionIdentity(user: "mallory", client: "a1", role: .host))
        #expect(await bobSink.nextMessage() == .join(Participant(user: "mallory", client: "a1", role: .host)))
        #expect(await mallorySink.staysQuiet())
    }

    @Test func anOlderConnectionWhoseHelloComesLateDoesNotReplaceTheNewerOne() async throws {
        // A client gave up waiting on its first connection and reconnected; the first one's hello
        // is handled only now (its loop was busy). The client keeps its new connection.
        let server = ServerHarness()
        let (old, oldSink) = server.connect()
        let (_, newSink, welcome) = await server.join(user: "alice", client: "a1")
        #expect(welcome != nil)
        old.send(.hello(Hello(token: server.token(user: "alice"), client: "a1")))
        #expect(await oldSink.nextClose() == .replaced)
        #expect(await newSink.staysQuiet())
    }

    @Test func aConnectionThatEndsWhileItsRoomLoadsLeavesNoParticipantBehind() async throws {
        let store = HeldLoadStore()
        let server = ServerHarness(store: store)
        let (gone, goneSink) = server.connect()
        gone.send(.hello(Hello(token: server.token(user: "alice"), client: "a1")))
        try await eventually("the room load has begun", timeout: .seconds(30)) { store.loadStarted.load(ordering: .acquiring) }
        gone.connectionClosed(clean: false)
        // Bob's hello waits on the same load, behind alice's.
        let (bob, bobSink) = server.connect()
        bob.send(.hello(Hello(token: server.token(user: "bob"), client: "b1")))
        store.release.signal()
        guard case .welcome(let welcome)? = await bobSink.nextMessage() else { Issue.record("no welcome"); return }
        #expect(welcome.participants.map(\.client) == ["b1"], "no participant in a grace period for a connection that never joined")
        #expect(await bobSink.staysQuiet())
        #expect(await goneSink.staysQuiet(), "no welcome goes to a connection that already ended")
    }

    @Test func aFullRoomClosesNewcomersWith4013() async throws {
        var configuration = ServerConfiguration()
        configuration.maxParticipantsPerRoom = 2
        let server = ServerHarness(configuration: configuration)
        _ = await server.join(user: "a", client: "a")
        _ = await server.join(user: "b", client: "b")
        let (third, sink) = server.connect()
        third.send(.hello(Hello(token: server.token(user: "c"), client: "c")))
        guard case .closed(.roomFull, .error(.roomFull, _)?)? = await sink.next() else { Issue.record("not closed 4013"); return }
    }

    @Test func roomsAreIsolated() async throws {
        let server = ServerHarness()
        let (alice, aliceSink, _) = await server.join(user: "alice", client: "a1", room: "one")
        let (_, bobSink, bobWelcome) = await server.join(user: "bob", client: "b1", room: "two")
        alice.send(.patch(seq: 1, ops: [set("/secret", "one")]))
        _ = await aliceSink.nextMessage()
        alice.send(.signal(event: "poke", data: [:]))
        #expect(await bobSink.staysQuiet())
        #expect(bobWelcome?.participants.map(\.user) == ["bob"])
    }

    @Test func signalsReachTheOthersAndAreNotStored() async throws {
        let server = ServerHarness()
        let (alice, aliceSink, _) = await server.join(user: "alice", client: "a1")
        let (_, bobSink, _) = await server.join(user: "bob", client: "b1")
        _ = await aliceSink.nextMessage(ofType: "join")
        alice.send(.signal(event: "video_play", data: ["at": 12]))
        #expect(await bobSink.nextMessage() == .signal(from: Peer(user: "alice", client: "a1"), event: "video_play", data: ["at": 12]))
        #expect(await aliceSink.staysQuiet())
        let (_, _, late) = await server.join(user: "carol", client: "c1")
        #expect(late?.rev == 0)
    }

    @Test func presenceChangesReachTheOthers() async throws {
        let server = ServerHarness()
        let (alice, _, _) = await server.join(user: "alice", client: "a1", presence: ["name": "Alice"])
        let (_, bobSink, welcome) = await server.join(user: "bob", client: "b1")
        #expect(welcome?.participants.first { $0.client == "a1" }?.data == ["name": "Alice"])
        alice.send(.presence(data: ["name": "Alice", "focus": "price"]))
        #expect(await bobSink.nextMessage() == .presence(Peer(user: "alice", client: "a1"), data: ["name": "Alice", "focus": "price"]))
    }
}

extension ServerSessionTests {
    @Test func anIdleRoomIsUnloadedAndComesBackFromStorage() async throws {
        let server = ServerHarness()
        let (alice, sink, first) = await server.join(user: "alice", client: "a1")
        alice.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/kept"), true)]))
        _ = await sink.nextMessage()
        #expect(server.registry.loadedCount == 1)
        alice.connectionClosed(clean: true)
        // Unloading waits a while after the last participant left.
        server.scheduler.advance(by: .seconds(29))
        #expect(server.registry.loadedCount == 1)
        server.scheduler.advance(by: .seconds(1))
        #expect(server.registry.loadedCount == 0)
        #expect(server.metrics.rooms.value == 0)
        // The next join loads the room from storage: same epoch, same state, exactly-once memory.
        let (_, _, again) = await server.join(user: "alice", client: "a1", resume: ResumePoint(epoch: first?.epoch ?? "", rev: 0))
        #expect(again?.epoch == first?.epoch)
        #expect(again?.lastSeq == 1)
        guard case .replay(let events)? = again?.sync else { Issue.record("no replay after reload"); return }
        #expect(events.map(\.rev) == [1])
        #expect(server.registry.loadedCount == 1)
    }

    @Test func aRoomWithParticipantsIsNotUnloaded() async throws {
        let server = ServerHarness()
        let (alice, _, _) = await server.join(user: "alice", client: "a1")
        let (_, _, _) = await server.join(user: "bob", client: "b1")
        alice.connectionClosed(clean: true)
        server.scheduler.advance(by: .seconds(60))
        #expect(server.registry.loadedCount == 1)
    }
}
