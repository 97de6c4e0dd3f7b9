import Testing
import TandemKit

@Suite struct StoreScopeTests {
    @Test func aScopeReadsAndWritesThroughTheRoot() {
        let root = Store(initialState: Counter(), reducer: counterReducer())
        let child = root.scope(state: \.child, action: CounterAction.child)
        child.send(.set(9))
        #expect(root.state.child.value == 9)
        #expect(child.state.value == 9)
        root.send(.child(.set(10)))
        #expect(child.state.value == 10)
    }

    @Test func nestedScopesComposeOntoTheRoot() async throws {
        let root = Store(initialState: Counter(), reducer: counterReducer())
        let grandchild = root
            .scope(state: \.child, action: CounterAction.child)
            .scope(state: \.grandchild, action: CounterAction.ChildAction.grandchild)
        let values = ChangeLog(grandchild) { $0.value }
        grandchild.send(.set(4))
        root.send(.increment)
        grandchild.send(.set(5))
        #expect(root.state.child.grandchild.value == 5)
        #expect(try await values.first(3) == [0, 4, 5])
    }

    @Test func scopesWithAMappingClosure() {
        let root = Store(initialState: Counter(count: 2), reducer: counterReducer())
        let doubled = root.scope(state: { $0.count * 2 }, action: { (amount: Int) in CounterAction.add(amount) })
        doubled.send(3)
        #expect(doubled.state == 10)
    }

    @Test func scopeObserversSeeTheProjection() {
        let root = Store(initialState: Counter(), reducer: counterReducer())
        let child = root.scope(state: \.child, action: CounterAction.child)
        let seen = Recorder<Int>()
        let token = child.observe { seen.append($0.value) }
        child.send(.set(1))
        root.send(.increment)
        child.send(.set(2))
        #expect(seen.all == [1, 1, 2])
        token.cancel()
    }

    @Test func aScopeDoesNotKeepTheRootAlive() async throws {
        let (child, weakRoot, counts) = makeOrphanedScope()
        #expect(weakRoot.object == nil)
        child.send(.set(3))
        #expect(child.state.value == 1, "the last state stays readable; later sends are dropped")
        let all = try await withTimeout {
            var values: [Int] = []
            for await value in counts { values.append(value) }
            return values
        }
        #expect(all == [1], "streams from the scope finish with the root")
        let late = try await withTimeout {
            var values: [Int] = []
            for await value in child.values(of: \.value) { values.append(value) }
            return values
        }
        #expect(late.isEmpty, "a stream requested after the root is gone finishes at once")
    }

    private func makeOrphanedScope() -> (
        Store<Counter.Child, CounterAction.ChildAction>,
        WeakReference<Store<Counter, CounterAction>>,
        AsyncStream<Int>
    ) {
        let root = Store(initialState: Counter(), reducer: counterReducer())
        let child = root.scope(state: \.child, action: CounterAction.child)
        child.send(.set(1))
        return (child, WeakReference(root), child.values(of: \.value))
    }
}
