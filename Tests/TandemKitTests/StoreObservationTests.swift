import Testing
import TandemKit

@Suite struct StoreObservationTests {
    @Test func statesStartWithTheCurrentStateAndSkipDuplicates() async throws {
        let store = Store(initialState: Counter(count: 5), reducer: counterReducer())
        let states = store.states
        store.send(.increment)
        store.send(.noop)
        store.send(.increment)
        let counts = try await collect(3, from: states).map(\.count)
        #expect(counts == [5, 6, 7])
    }

    @Test func sliceStreamsIgnoreChangesElsewhere() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let childValues = store.values(of: \.child.value)
        store.send(.increment)
        store.send(.child(.set(3)))
        store.send(.record("x"))
        store.send(.child(.set(4)))
        #expect(try await collect(3, from: childValues) == [0, 3, 4])
    }

    @Test func mappedStreamsDeduplicateTheMappedValue() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let parity = store.values { $0.count.isMultiple(of: 2) ? "even" : "odd" }
        store.send(.add(2))
        store.send(.add(1))
        store.send(.add(2))
        store.send(.add(1))
        #expect(try await collect(3, from: parity) == ["even", "odd", "even"])
    }

    @Test func streamsFinishWhenTheRootStoreIsReleased() async throws {
        var store: Store<Counter, CounterAction>? = Store(initialState: Counter(), reducer: counterReducer())
        let counts = store!.values(of: \.count)
        store?.send(.increment)
        store = nil
        let all = try await withTimeout {
            var values: [Int] = []
            for await value in counts { values.append(value) }
            return values
        }
        #expect(all == [0, 1])
    }

    @Test func synchronousObserversSeeEveryStateInOrder() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let seen = Recorder<Int>()
        let token = store.observe { seen.append($0.count) }
        store.send(.increment)
        store.send(.noop)
        store.send(.add(3))
        #expect(seen.all == [1, 1, 4])
        token.cancel()
    }

    @Test func cancellingOrReleasingTheTokenUnsubscribes() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let cancelledSeen = Recorder<Int>()
        let releasedSeen = Recorder<Int>()
        let cancelled = store.observe { cancelledSeen.append($0.count) }
        var released: ObservationToken? = store.observe { releasedSeen.append($0.count) }
        store.send(.increment)
        cancelled.cancel()
        cancelled.cancel()
        #expect(cancelled.isCancelled)
        released = nil
        store.send(.increment)
        #expect(cancelledSeen.all == [1])
        #expect(releasedSeen.all == [1])
        #expect(released == nil)
    }

    @Test func aSendFromAnObserverRunsAfterAllObserversSawTheCurrentState() {
        let reference = StoreReference<Counter, CounterAction>()
        let store = Store(initialState: Counter(), reducer: counterReducer())
        reference.set(store)
        let seen = Recorder<String>()
        let first = store.observe { state in
            seen.append("first \(state.log)")
            if state.log == ["a"] {
                reference.send(.record("b"))
                // Queued, not reduced yet: the store is still notifying about "a".
                seen.append("after send \(store.state.log)")
            }
        }
        let second = store.observe { seen.append("second \($0.log)") }
        store.send(.record("a"))
        #expect(seen.all == [
            "first [\"a\"]", "after send [\"a\"]", "second [\"a\"]",
            "first [\"a\", \"b\"]", "second [\"a\", \"b\"]",
        ])
        #expect(store.state.log == ["a", "b"])
        first.cancel()
        second.cancel()
        reference.set(nil)
    }
}
