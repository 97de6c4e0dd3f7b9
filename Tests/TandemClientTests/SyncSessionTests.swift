import Testing
import TandemProtocol
import TandemServer
@testable import TandemClient

@Suite struct SyncSessionTests {
    @Test func twoSessionsConverge() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let (bob, _) = harness.session(user: "bob", client: "b1")
        await alice.start()
        await bob.start()
        try await alice.apply([Fixtures.set("/tabIndex", 1)])
        try await bob.apply([Fixtures.set("/marks/video_playing", true)])
        let converged = await eventually {
            let a = await alice.snapshot, b = await bob.snapshot
            return a == b && a.pending == 0 && a.rev == 2
        }
        #expect(converged)
        #expect(await alice.snapshot.state == ["tabIndex": 1, "marks": ["video_playing": true]])
        await alice.stop()
        await bob.stop()
        await harness.shutdown()
    }

    @Test func aLocalChangeIsVisibleAtOnceThenAcknowledged() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let events = StreamLog(alice.events)
        let states = StreamLog(alice.states)
        await alice.start()
        try await alice.apply([Fixtures.set("/tabIndex", 3)])
        // Before any answer: visible at once, pending, confirmed rev still 0.
        #expect(await alice.snapshot == SyncSnapshot(rev: 0, pending: 1, state: ["tabIndex": 3]))
        #expect(await eventually { events.all.contains(.acknowledged(seq: 1, rev: 1)) })
        #expect(await eventually { events.all.last == .stateChanged(SyncSnapshot(rev: 1, pending: 0, state: ["tabIndex": 3])) })
        #expect(await alice.drain(timeout: .seconds(5)))
        await alice.stop()
        #expect(await eventually { states.isFinished && events.isFinished })
        #expect(states.all.prefix(4) == [.connecting, .handshaking, .connected, .closed(.closedByApp)])
        await harness.shutdown()
    }

    @Test func aLostConnectionReconnectsResumesAndLosesNoAcknowledgedUpdate() async throws {
        let harness = try SessionTestServer.start()
        let (alice, aliceTokens) = harness.session(user: "alice", client: "a1")
        let (bob, _) = harness.session(user: "bob", client: "b1")
        let aliceEvents = StreamLog(alice.events)
        let aliceStates = StreamLog(alice.states)
        await alice.start()
        await bob.start()
        let settled = await eventually {
            let a = await alice.isSettled(), b = await bob.isSettled()
            return a && b
        }
        #expect(settled)
        for index in 1...5 { try await alice.apply([Fixtures.set("/a\(index)", .number(Double(index)))]) }
        await alice.simulateNetworkLoss()
        // Changes made while alice is away arrive in her replay.
        for index in 1...3 { try await bob.apply([Fixtures.set("/b\(index)", .number(Double(index)))]) }
        for index in 6...8 { try await alice.apply([Fixtures.set("/a\(index)", .number(Double(index)))]) }
        let converged = await eventually {
            let a = await alice.snapshot, b = await bob.snapshot
            return a == b && a.pending == 0 && b.pending == 0 && a.rev == 11
        }
        #expect(converged)
        let state = await bob.snapshot.state
        for index in 1...8 { #expect(state["a\(index)"] == .number(Double(index))) }
        for index in 1...3 { #expect(state["b\(index)"] == .number(Double(index))) }
        #expect(aliceTokens.value >= 2, "the token provider is asked again for the reconnect")
        #expect(aliceStates.all.contains { if case .reconnecting = $0 { true } else { false } })
        let resumed = aliceEvents.all.contains { event in
            if case .synchronized(_, _, false, _) = event { true } else { false }
        }
        #expect(resumed, "the reconnect resumes with a replay, not a snapshot")
        await alice.stop()
        await bob.stop()
        await harness.shutdown()
    }

    @Test func aRejectedPatchIsRolledBackAndReported() async throws {
        let harness = try SessionTestServer.start()
        let (viewer, _) = harness.session(user: "vera", client: "v1", role: .viewer)
        let events = StreamLog(viewer.events)
        // Queued before the welcome tells the session its role, so the server decides.
        try await viewer.apply([Fixtures.set("/tabIndex", 9)])
        #expect(await viewer.snapshot.state == ["tabIndex": 9])
        await viewer.start()
        let rejected = await eventually {
            events.all.contains { if case .rejected(1, .forbidden, _, _) = $0 { true } else { false } }
        }
        #expect(rejected)
        #expect(await eventually { await viewer.snapshot == SyncSnapshot(rev: 0, pending: 0, state: .emptyObject) })
        #expect(await viewer.drain(timeout: .seconds(1)))
        // Once the role is known, the change is refused locally.
        await #expect(throws: SyncSessionError.change(.readOnly(role: .viewer))) {
            try await viewer.apply([Fixtures.set("/tabIndex", 1)])
        }
        await viewer.stop()
        await harness.shutdown()
    }
}
