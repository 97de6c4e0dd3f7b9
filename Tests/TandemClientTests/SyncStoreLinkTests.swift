import Synchronization
import Testing
import TandemKit
import TandemProtocol
@testable import TandemClient

/// A store bound to a live session: the article's "one render entry point" end to end.
@Suite struct SyncStoreLinkTests {
    typealias F = Fixtures

    /// A store for `ProductFeature` whose page slice is linked to `session`.
    static func linkedStore(_ session: SyncSession) throws -> (Store<ProductFeature.State, ProductFeature.Action>, SyncStoreLink, SyncBinding<ProductFeature.State, ProductFeature.Action, PageState>) {
        let link = SyncStoreLink(session: session)
        let binding = SyncBinding(
            slice: \ProductFeature.State.page, shared: try SharedState(defaultValue: PageState.initial),
            remote: { ProductFeature.Action.remoteChanged($0) },
            extract: { if case .remoteChanged(let page) = $0 { page } else { nil } },
            outbox: { link.submit($0) })
        let store = Store(initialState: ProductFeature.State(), reducer: binding.reducer(ProductFeature.reducer))
        return (store, link, binding)
    }

    @Test func twoLinkedStoresShareTheirSliceThroughTheServer() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let (bob, _) = harness.session(user: "bob", client: "b1")
        let (aliceStore, aliceLink, aliceBinding) = try Self.linkedStore(alice)
        let (bobStore, bobLink, bobBinding) = try Self.linkedStore(bob)
        let errors = Mutex<[SyncSessionError]>([])
        let aliceRun = Task { await aliceLink.run(store: aliceStore, binding: aliceBinding) }
        let bobRun = Task { await bobLink.run(store: bobStore, binding: bobBinding, onError: { e in errors.withLock { $0.append(e) } }) }
        await alice.start()
        await bob.start()

        aliceStore.send(.selectTab(2))
        aliceStore.send(.toggleCart)
        #expect(aliceStore.state.page.tabIndex == 2, "a local change is in the store at once")
        #expect(await eventually { bobStore.state.page.tabIndex == 2 && bobStore.state.page.addToCartSelected })
        bobStore.send(.selectTab(1))
        #expect(await eventually { aliceStore.state.page.tabIndex == 1 })
        // A change outside the slice stays local.
        bobStore.send(.setLoading(true))
        #expect(await bob.drain(timeout: .seconds(30)))
        #expect(await alice.drain(timeout: .seconds(30)))
        #expect(aliceStore.state.isLoading == false)
        #expect(await alice.snapshot.state == bob.snapshot.state)
        #expect(errors.withLock { $0 }.isEmpty)

        await alice.stop()
        await bob.stop()
        // The links end with their sessions.
        await aliceRun.value
        await bobRun.value
        await harness.shutdown()
    }

    @Test func aViewersLocalChangeIsReportedAndRolledBackInTheStore() async throws {
        let harness = try SessionTestServer.start()
        let (viewer, _) = harness.session(user: "val", client: "v1", role: .viewer)
        let (store, link, binding) = try Self.linkedStore(viewer)
        let errors = Mutex<[SyncSessionError]>([])
        let run = Task { await link.run(store: store, binding: binding, onError: { e in errors.withLock { $0.append(e) } }) }
        await viewer.start()
        #expect(await viewer.waitUntilConnected(timeout: .seconds(30)))
        store.send(.selectTab(3))
        #expect(await eventually { !errors.withLock { $0 }.isEmpty })
        #expect(await eventually { store.state.page.tabIndex == 0 }, "the refused change is undone in the store")
        await viewer.stop()
        await run.value
        await harness.shutdown()
    }

    @Test func settledCoversTheChangeTheLinkHasNotHandedOverYet() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let (store, link, binding) = try Self.linkedStore(alice)
        let run = Task { await link.run(store: store, binding: binding) }
        await alice.start()
        #expect(await alice.waitUntilConnected(timeout: .seconds(30)))
        for round in 1...20 {
            store.send(.selectTab(round))
            // At once after the send: the change may still be in the link, where `drain` alone does not see it.
            #expect(await link.settled(timeout: .seconds(30)))
            let snapshot = await alice.snapshot
            #expect(snapshot.state["tabIndex"] == .number(Double(round)) && snapshot.pending == 0, "round \(round)")
        }
        await alice.stop()
        await run.value
        await harness.shutdown()
    }

    @Test func aBindingReportsAStateItCannotReadAndAChangeItCannotEncode() throws {
        let errors = Mutex<[SharedStateError]>([])
        let binding = SyncBinding(
            slice: \ProductFeature.State.page, shared: try SharedState(defaultValue: PageState.initial),
            remote: { ProductFeature.Action.remoteChanged($0) },
            extract: { if case .remoteChanged(let page) = $0 { page } else { nil } },
            outbox: { _ in }, onError: { error in errors.withLock { $0.append(error) } })
        let unreadable = Document(["tabIndex": "two"])
        #expect(binding.remoteAction(for: unreadable, current: ProductFeature.State()) == nil)
        guard case .decoding? = errors.withLock({ $0.last }) else { Issue.record("no decoding error: \(errors.withLock { $0 })"); return }
        var broken = ProductFeature.State()
        broken.page.contentOffset.y = .nan
        #expect(binding.localOps(action: .selectTab(1), old: ProductFeature.State(), new: broken) == [])
        guard case .encoding? = errors.withLock({ $0.last }) else { Issue.record("no encoding error: \(errors.withLock { $0 })"); return }
    }

    @Test func snapshotsServeManyObserversWithTheLatestStateAndUnsubscribe() async throws {
        let harness = try SessionTestServer.start()
        let (alice, _) = harness.session(user: "alice", client: "a1")
        let first = await alice.snapshots()
        let second = await alice.snapshots()
        #expect(await alice.snapshotObserverCount == 2)
        // Neither stream is read while ten changes happen: each keeps only the newest.
        for index in 1...10 { try await alice.apply([F.set("/k\(index)", .number(Double(index)))]) }
        var firstIterator = first.makeAsyncIterator()
        var secondIterator = second.makeAsyncIterator()
        let latestFirst = await firstIterator.next()
        let latestSecond = await secondIterator.next()
        #expect(latestFirst?.state["k10"] == .number(10))
        #expect(latestSecond == latestFirst)
        #expect(latestFirst?.pending == 10)

        // Ending an iteration unsubscribes.
        let third = Task {
            for await _ in await alice.snapshots() { break }
        }
        await third.value
        #expect(await eventually { await alice.snapshotObserverCount == 2 })
        await alice.stop()
        #expect(await firstIterator.next() == nil, "streams finish with the session")
        await harness.shutdown()
    }

    @Test("two listeners of one session each get every event: an app's own log and a SharedRoom do not split them")
    func everyListenerGetsEveryEvent() async throws {
        let harness = try SessionTestServer.start()
        let (session, _) = harness.session(user: "alice", client: "a1")
        let log = StreamLog(session.events)
        let room = try await MainActor.run { try SharedRoom(session: session, initialState: RoomPage(), presence: RoomCursor.self) }
        await room.start()
        #expect(await eventually { await MainActor.run { room.status.connection == .connected } })
        try await session.apply([F.set("/tabIndex", 2)])
        #expect(await eventually { log.all.contains(.acknowledged(seq: 1, rev: 1)) })
        #expect(log.all.contains { if case .synchronized = $0 { true } else { false } })
        await room.stop()
        #expect(await eventually { log.isFinished })
        await harness.shutdown()
    }

    @Test func unreadEventsAreBoundedByTheConfiguredLimit() async throws {
        let harness = try SessionTestServer.start()
        let session = SyncSession(
            url: harness.server.syncURL, clientID: "a1", tokenProvider: { "unused" },
            configuration: SyncSessionConfiguration(eventBufferLimit: 3), transport: WireTransport(group: harness.group))
        // Twenty local changes while a listener does not read: twenty `stateChanged` events were produced.
        let events = session.events
        for index in 1...20 { try await session.apply([F.set("/n", .number(Double(index)))]) }
        await session.stop()
        var kept: [SyncSessionEvent] = []
        for await event in events { kept.append(event) }
        #expect(kept.count == 3, "only the newest three were kept")
        #expect(kept.last == .connectionChanged(.closed(.closedByApp)))
        var late: [SyncSessionEvent] = []
        for await event in session.events { late.append(event) }
        #expect(late.isEmpty, "a listener that comes after the end gets a stream that has ended")
        await harness.shutdown()
    }
}
