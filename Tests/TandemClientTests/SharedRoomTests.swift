import Observation
import Synchronization
import Testing
import TandemTesting
import TandemProtocol
@testable import TandemClient

/// The article's page state, as an app declares it.
struct RoomPage: Codable, Equatable, Sendable {
    var tabIndex = 0
    var note = ""
}

/// A participant's presence, as an app declares it.
struct RoomCursor: Codable, Equatable, Sendable {
    var name: String
    var y: Double = 0
}

/// Render frames a test hands out one at a time.
final class FrameGate: Sendable {
    private let state = Mutex<(tokens: Int, waiters: [CheckedContinuation<Void, Never>])>((0, []))

    /// Waits for the next `tick()`.
    func wait() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.tokens > 0 {
                    state.tokens -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets one frame happen.
    func tick() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.tokens += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }
}

/// Counts the changes of what `read` reads, re-registering after each (as a view does when it renders).
@MainActor final class ObservationCounter {
    private(set) var changes = 0
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking { read() } onChange: { [weak self] in
            // The room changes its state on the main actor, so the change is counted as it happens.
            MainActor.assumeIsolated { self?.changes += 1 }
            Task { @MainActor in self?.track() }
        }
    }
}

/// Polls `condition` on the main actor until it holds or `timeout` passes.
@MainActor func eventuallyOnMain(timeout: Duration = .seconds(30), _ condition: @MainActor () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return await condition()
}

/// `SharedRoom` over the in-memory transport: typed state, frames, local changes, errors, participants.
@MainActor @Suite struct SharedRoomTests {
    private static func welcome(state: JSONValue = .emptyObject, role: Role = .host, participants: [Participant] = []) -> [UInt8] {
        ServerMessage.welcome(Welcome(epoch: "e1", rev: 0, sync: .state(state), lastSeq: 0,
                                      you: SessionIdentity(user: "alice", client: "a1", role: role),
                                      participants: [Participant(user: "alice", client: "a1", role: role, data: ["name": "Alice", "y": 0])] + participants)).encoded()
    }

    private static func remote(rev: Int64, _ ops: [PatchOp]) -> [UInt8] {
        ServerMessage.patch(PatchEvent(rev: rev, user: "bob", client: "b1", seq: rev, ops: ops)).encoded()
    }

    /// A started room whose first connection the test serves; frames come from `frames`. It fills missing
    /// fields only when `fills`.
    private func room(frames: FrameGate, welcome: [UInt8] = welcome(), fills: Bool = false) async throws -> (SharedRoom<RoomPage, RoomCursor>, ServedConnection) {
        let transport = InMemoryTransport()
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" }, transport: transport)
        let room = try SharedRoom(session: session, initialState: RoomPage(), presence: RoomCursor.self, fillsMissingFields: fills,
                                  nextFrame: { await frames.wait() })
        var connections = transport.connections.makeAsyncIterator()
        await room.start()
        let server = try await ServedConnection.accept(&connections)
        _ = try await server.handshake(welcome)
        #expect(await session.waitUntilConnected(timeout: .seconds(10)))
        return (room, server)
    }

    @Test func theStateIsTypedAndABurstOfRemotePatchesIsOneObservationPerFrame() async throws {
        let frames = FrameGate()
        let (room, server) = try await room(frames: frames, welcome: Self.welcome(state: ["tabIndex": 1, "unknown": true]))
        frames.tick()
        #expect(await eventuallyOnMain { room.state == RoomPage(tabIndex: 1, note: "") && room.status.connection == .connected })
        #expect(room.status.isSaved)
        let counter = ObservationCounter { _ = room.state }

        for rev in 1...50 { server.send(text: Self.remote(rev: Int64(rev), [Fixtures.set("/tabIndex", .number(Double(rev)))])) }
        #expect(await eventuallyOnMain { await room.session.snapshot.rev == 50 })
        // A render loop that was idle shows the first change at once (it may also have a frame left from
        // the welcome); the rest wait for a frame.
        #expect(counter.changes <= 1, "nothing renders between frames but the first change")
        frames.tick()
        frames.tick()
        #expect(await eventuallyOnMain { room.state.tabIndex == 50 })
        #expect(counter.changes <= 3, "fifty patches, a few frames, a few observations: \(counter.changes)")
        await room.stop()
    }

    @Test func anUpdateShowsAtOnceSendsMinimalOpsAndSettles() async throws {
        let frames = FrameGate()
        let (room, server) = try await room(frames: frames)
        room.update { $0.note = "hello" }
        #expect(room.state.note == "hello" && !room.status.isSaved)
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/note", "hello")], base: 0))
        room.update { _ in }  // no change, nothing sent
        server.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        #expect(await room.settled(timeout: .seconds(10)))
        #expect(room.status.isSaved)
        await room.stop()
    }

    @Test func theFirstWriterFillsMissingFieldsConditionallyAndTriesAgainWhenRefused() async throws {
        let frames = FrameGate()
        let (room, server) = try await room(frames: frames, welcome: Self.welcome(state: ["tabIndex": 3]), fills: true)
        #expect(try await server.next() == .patch(seq: 1, ops: [.test(.root, ["tabIndex": 3]), .add(Fixtures.path("/note"), "")], base: 0))
        // Someone else wrote first: the server refuses the fill; the room tries again on what it now sees.
        server.send(text: Self.remote(rev: 1, [Fixtures.set("/note", "hi")]))
        server.send(text: ServerMessage.reject(seq: 1, code: .testFailed, message: "op 0: test failed").encoded())
        server.send(text: Self.remote(rev: 2, [.remove(Fixtures.path("/note"))]))
        #expect(try await server.next() == .patch(seq: 2, ops: [.test(.root, ["tabIndex": 3]), .add(Fixtures.path("/note"), "")], base: 2))
        server.send(text: ServerMessage.ack(seq: 2, rev: 3, duplicate: false).encoded())
        #expect(await room.settled(timeout: .seconds(10)))
        frames.tick()
        #expect(await eventuallyOnMain { room.state == RoomPage(tabIndex: 3, note: "") })
        #expect(room.lastError == nil, "a refused fill is not the app's error")
        #expect(await room.session.snapshot.state == ["tabIndex": 3, "note": ""])
        await room.stop()
    }

    @Test func aRefusedFillIsKnownByItsTestAfterALaterChangeTookItsAdds() async throws {
        let transport = InMemoryTransport()
        // One patch in flight at a time: the fill waits unsent behind the earlier change until its ack.
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" },
                                  configuration: SyncSessionConfiguration(engine: SyncEngineConfiguration(maxInFlight: 1)), transport: transport)
        let room = try SharedRoom(session: session, initialState: RoomPage(), presence: RoomCursor.self)
        var connections = transport.connections.makeAsyncIterator()
        await room.start()
        room.update { $0.tabIndex = 7 }
        let server = try await ServedConnection.accept(&connections)
        _ = try await server.handshake(Self.welcome())
        #expect(try await server.next() == .patch(seq: 1, ops: [Fixtures.set("/tabIndex", 7)], base: 0))
        #expect(await eventuallyOnMain { await session.snapshot.pending == 2 })
        room.update { $0.note = "mine" }   // decides the fill's `add /note`: only its test is left
        #expect(await eventuallyOnMain { await session.snapshot.pending == 3 })
        server.send(text: ServerMessage.ack(seq: 1, rev: 1, duplicate: false).encoded())
        let second = try await server.next()
        #expect(second == .patch(seq: 2, ops: [.test(.root, ["tabIndex": 7])], base: 1), "\(second)")
        server.send(text: ServerMessage.reject(seq: 2, code: .testFailed, message: "op 0: test failed").encoded())
        #expect(await eventuallyOnMain { await session.snapshot.pending == 1 })
        #expect(room.lastError == nil, "\(String(describing: room.lastError))")
        await room.stop()
    }

    @Test func aRoomWithEveryFieldOrAViewerSendsNoFill() async throws {
        let cases: [(JSONValue, Role)] = [(["tabIndex": 1, "note": "x"], .host), (.emptyObject, .viewer)]
        for (state, role) in cases {
            let frames = FrameGate()
            let (room, server) = try await room(frames: frames, welcome: Self.welcome(state: state, role: role), fills: true)
            room.updatePresence(RoomCursor(name: "Alice", y: 1))
            #expect(try await server.next() == .presence(data: ["name": "Alice", "y": 1]), "nothing before the presence")
            await room.stop()
        }
    }

    @Test func aRefusedChangeIsRolledBackAndReported() async throws {
        let frames = FrameGate()
        let (room, _) = try await room(frames: frames, welcome: Self.welcome(state: ["tabIndex": 1], role: .viewer))
        frames.tick()
        #expect(await eventuallyOnMain { room.state.tabIndex == 1 })
        room.update { $0.tabIndex = 4 }
        #expect(room.state.tabIndex == 4)
        #expect(await eventuallyOnMain { room.state.tabIndex == 1 })
        guard case .changeRefused(.change(.readOnly))? = room.lastError else { Issue.record("lastError \(String(describing: room.lastError))"); return }
        await room.stop()
    }

    @Test("a change after stop() is refused and reported as one after the server closed the session is, and the state stays as it was")
    func aChangeAfterStopIsRefusedAndReported() async throws {
        let frames = FrameGate()
        let (room, _) = try await room(frames: frames, welcome: Self.welcome(state: ["tabIndex": 1]))
        frames.tick()
        #expect(await eventuallyOnMain { room.state.tabIndex == 1 })
        await room.stop()
        room.update { $0.tabIndex = 4 }
        #expect(room.state.tabIndex == 1, "nothing shown that nobody will receive")
        guard case .changeRefused(.closed)? = room.lastError else { Issue.record("lastError \(String(describing: room.lastError))"); return }
        #expect(room.status.pendingChanges == 0)
    }

    @Test func aStateOfAnotherShapeIsReportedAndTheLastGoodStateKept() async throws {
        let frames = FrameGate()
        let (room, server) = try await room(frames: frames, welcome: Self.welcome(state: ["tabIndex": 2]))
        frames.tick()
        #expect(await eventuallyOnMain { room.state.tabIndex == 2 })
        server.send(text: Self.remote(rev: 1, [Fixtures.set("/tabIndex", "two")]))
        frames.tick()
        #expect(await eventuallyOnMain { if case .incompatibleState? = room.lastError { true } else { false } })
        #expect(room.state.tabIndex == 2)
        server.send(text: Self.remote(rev: 2, [Fixtures.set("/tabIndex", 3)]))
        frames.tick()
        #expect(await eventuallyOnMain { room.state.tabIndex == 3 })
        #expect(room.lastError == nil, "readable again")
        await room.stop()
    }

    @Test func participantsPresenceAndSignals() async throws {
        let frames = FrameGate()
        let carol = Participant(user: "carol", client: "c1", role: .guest, name: "Carol", data: ["name": "Carol", "y": 10])
        let (room, server) = try await room(frames: frames, welcome: Self.welcome(participants: [carol]))
        #expect(await eventuallyOnMain { room.others.count == 1 })
        #expect(room.me?.presence == RoomCursor(name: "Alice"))
        #expect(room.others.first?.presence == RoomCursor(name: "Carol", y: 10) && room.others.first?.name == "Carol")

        server.send(text: ServerMessage.join(Participant(user: "bob", client: "b1", role: .guest, data: ["name": "Bob"])).encoded())
        server.send(text: ServerMessage.presence(Peer(user: "carol", client: "c1"), data: ["name": "Carol", "y": 99]).encoded())
        server.send(text: ServerMessage.leave(Peer(user: "bob", client: "b1")).encoded())
        #expect(await eventuallyOnMain { room.others.map(\.presence) == [RoomCursor(name: "Carol", y: 99)] })

        var signals = room.signals.makeAsyncIterator()
        server.send(text: ServerMessage.signal(from: Peer(user: "carol", client: "c1"), event: "wave", data: ["hand": "left"]).encoded())
        #expect(await signals.next() == RoomSignal(from: Peer(user: "carol", client: "c1"), event: "wave", data: ["hand": "left"]))
        await room.stop()
    }

    @Test func presenceAndStatusFollowTheSession() async throws {
        let frames = FrameGate()
        let (room, server) = try await room(frames: frames)
        room.updatePresence(RoomCursor(name: "Alice", y: 5))
        #expect(try await server.next() == .presence(data: ["name": "Alice", "y": 5]))
        await room.session.suspend()
        #expect(await eventuallyOnMain { room.status.connection == .offline })
        await room.stop()
        #expect(await eventuallyOnMain { room.status.connection == .closed(.closedByApp) })
    }
}

/// Shared rooms on a real server: participants joining a fresh room at once fill it exactly once, a
/// participant that only reads sees the values without knowing the app's defaults, and appends made at
/// the same moment all land.
@MainActor @Suite struct SharedRoomServerTests {
    struct Cart: Codable, Equatable, Sendable {
        var items: [String] = []
    }

    @Test func twoParticipantsAddingToTheCartAtOnceBothLand() async throws {
        let server = try TestServer()
        let alice = try SharedRoom(session: server.session(user: "alice", client: "a1"), initialState: Cart(), presence: JSONValue.self)
        let bob = try SharedRoom(session: server.session(user: "bob", client: "b1", role: .guest), initialState: Cart(), presence: JSONValue.self)
        await alice.start()
        await bob.start()
        #expect(await alice.settled(timeout: .seconds(30)))
        #expect(await eventuallyOnMain { await bob.session.snapshot.rev >= 1 && bob.status.connection == .connected })
        // Each adds an item to the cart it sees, neither having seen the other's.
        alice.update { $0.items.append("shoes") }
        bob.update { $0.items.append("hat") }
        let aliceSaved = await alice.settled(timeout: .seconds(30))
        let bobSaved = await bob.settled(timeout: .seconds(30))
        #expect(aliceSaved && bobSaved)
        #expect(await eventuallyOnMain { alice.state == bob.state && alice.state.items.count == 2 })
        #expect(Set(alice.state.items) == ["shoes", "hat"], "\(alice.state.items)")
        await alice.stop()
        await bob.stop()
        await server.shutdown()
    }

    @Test func twoParticipantsJoiningAFreshRoomFillItOnceWithoutErrors() async throws {
        let server = try TestServer()
        let alice = try SharedRoom(session: server.session(user: "alice", client: "a1"), initialState: RoomPage(tabIndex: 0, note: "welcome"),
                                   presence: RoomCursor.self)
        let bob = try SharedRoom(session: server.session(user: "bob", client: "b1", role: .guest), initialState: RoomPage(tabIndex: 0, note: "welcome"),
                                 presence: RoomCursor.self)
        let reader = server.session(user: "carol", client: "c1", role: .viewer)
        async let startAlice: Void = alice.start()
        async let startBob: Void = bob.start()
        _ = await (startAlice, startBob)
        await reader.start()
        #expect(await eventuallyOnMain { await reader.snapshot.state == ["tabIndex": 0, "note": "welcome"] })
        let aliceSaved = await alice.settled(timeout: .seconds(30))
        let bobSaved = await bob.settled(timeout: .seconds(30))
        #expect(aliceSaved && bobSaved)
        #expect(alice.lastError == nil && bob.lastError == nil)
        // The room was written once: one fill applied (a second one, if sent, was refused by its test).
        #expect(await reader.snapshot.rev == 1)
        await alice.stop()
        await bob.stop()
        await reader.stop()
        await server.shutdown()
    }
}
