import Synchronization
import Testing
import TandemKit
import TandemKitTesting
import TandemProtocol
@testable import TandemClient

/// An app feature whose page state is shared.
struct ProductFeature {
    struct State: Equatable, Sendable {
        var page = PageState.initial
        var isLoading = false
    }

    enum Action: Equatable, Sendable {
        case selectTab(Int)
        case toggleCart
        case setLoading(Bool)
        case remoteChanged(PageState)
    }

    static let reducer: Store<State, Action>.Reducer = { state, action in
        switch action {
        case .selectTab(let index): state.page.tabIndex = index
        case .toggleCart: state.page.addToCartSelected.toggle()
        case .setLoading(let loading): state.isLoading = loading
        case .remoteChanged: break // the binding owns this one
        }
        return .none
    }
}

/// Collects what the binding hands to the sync engine.
final class Outbox: Sendable {
    private let ops = Mutex<[[PatchOp]]>([])
    var sent: [[PatchOp]] { ops.withLock { $0 } }
    func send(_ batch: [PatchOp]) { ops.withLock { $0.append(batch) } }
}

@Suite struct SyncBindingTests {
    typealias F = Fixtures

    static func binding(_ outbox: Outbox) throws -> SyncBinding<ProductFeature.State, ProductFeature.Action, PageState> {
        SyncBinding(
            slice: \ProductFeature.State.page, shared: try SharedState(defaultValue: PageState.initial),
            remote: { .remoteChanged($0) },
            extract: { if case .remoteChanged(let page) = $0 { page } else { nil } },
            outbox: { outbox.send($0) })
    }

    @Test func localChangesBecomeOpsAndRemoteChangesAnAction() async throws {
        let outbox = Outbox()
        let binding = try Self.binding(outbox)
        let store = TestStore(initialState: ProductFeature.State(), reducer: binding.reducer(ProductFeature.reducer))
        await store.send(.selectTab(2)) { $0.page.tabIndex = 2 }
        await store.send(.setLoading(true)) { $0.isLoading = true }
        #expect(outbox.sent == [[F.set("/tabIndex", 2)]], "a change outside the slice sends nothing")

        // The other side toggled the cart: the engine's visible document becomes one action.
        var engine = F.connectedEngine()
        _ = engine.receive(F.event(rev: 1, [F.set("/tabIndex", 2), F.set("/addToCartSelected", true)]))
        let action = try #require(binding.remoteAction(for: engine.visible, current: store.state))
        var expected = store.state.page
        expected.addToCartSelected = true
        #expect(action == .remoteChanged(expected))
        await store.send(action) { $0.page.addToCartSelected = true }
        #expect(outbox.sent.count == 1, "a remote change is not echoed back")
        #expect(binding.remoteAction(for: engine.visible, current: store.state) == nil, "nothing new to render")
    }

    @Test func middlewareSendsTheSlicesChanges() throws {
        let outbox = Outbox()
        let binding = try Self.binding(outbox)
        let middleware = binding.middleware()
        let old = ProductFeature.State()
        var new = old
        new.page.marks["video_playing"] = true
        _ = middleware.didReduce(.toggleCart, old, new)
        _ = middleware.didReduce(.remoteChanged(new.page), old, new)
        #expect(outbox.sent == [[F.set("/marks/video_playing", true)]])
    }

    @Test func oneRenderEntryPointForLocalAndRemote() async throws {
        let outbox = Outbox()
        let binding = try Self.binding(outbox)
        let store = Store(initialState: ProductFeature.State(), reducer: binding.reducer(ProductFeature.reducer))
        let rendered = Mutex<[Int]>([])
        let token = store.observe { state in rendered.withLock { $0.append(state.page.tabIndex) } }
        store.send(.selectTab(1))
        var page = store.state.page
        page.tabIndex = 4
        store.send(.remoteChanged(page))
        #expect(rendered.withLock { $0 }.suffix(2) == [1, 4])
        #expect(outbox.sent == [[F.set("/tabIndex", 1)]])
        _ = token
    }
}
