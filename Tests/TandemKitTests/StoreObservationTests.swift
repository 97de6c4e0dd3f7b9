import Testing
@testable import TandemKit

@Suite struct StoreObservationTests {
    @Test func statesStartWithTheCurrentStateAndSkipDuplicates() async throws {
        let store = Store(initialState: Counter(count: 5), reducer: counterReducer())
        let states = store.states
        #expect(try await collect(1, from: states).map(\.count) == [5])
        store.send(.increment)
        #expect(try await collect(1, from: states).map(\.count) == [6])
        store.send(.noop)
        store.send(.increment)
        #expect(try await collect(1, from: states).map(\.count) == [7])
    }

    @Test func sliceStreamsIgnoreChangesElsewhere() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let childValues = store.values(of: \.child.value)
        #expect(try await collect(1, from: childValues) == [0])
        store.send(.increment)
        store.send(.child(.set(3)))
        #expect(try await collect(1, from: childValues) == [3])
        store.send(.record("x"))
        store.send(.child(.set(4)))
        #expect(try await collect(1, from: childValues) == [4])
    }

    @Test func mappedStreamsDeduplicateTheMappedValue() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let parity = store.values { $0.count.isMultiple(of: 2) ? "even" : "odd" }
        #expect(try await collect(1, from: parity) == ["even"])
        store.send(.add(2))
        store.send(.add(1))
        #expect(try await collect(1, from: parity) == ["odd"])
        store.send(.add(2))
        store.send(.add(1))
        #expect(try await collect(1, from: parity) == ["even"])
    }

    @Test func aChangeBackToTheLastReceivedValueBeforeTheConsumerReadsIsNotARepeat() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let (counts, buffer) = try observationStream(of: store) { $0.count }
        #expect(try await collect(1, from: counts) == [0])
        store.send(.add(5))
        #expect(buffer.bufferedCount == 1)
        store.send(.add(-5))
        #expect(buffer.bufferedCount == 0, "0 again is not a new value for a consumer that saw 0")
        store.send(.add(2))
        #expect(try await collect(1, from: counts) == [2])
    }

    @Test func aConsumerThatFallsBehindGetsOnlyTheNewestState() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let (counts, buffer) = try observationStream(of: store) { $0.count }
        #expect(buffer.bufferedCount == 1, "the current value waits for the consumer")
        for _ in 0..<10_000 { store.send(.increment) }
        #expect(buffer.bufferedCount == 1, "10,000 changes leave one value buffered, not 10,000")
        #expect(try await collect(1, from: counts) == [10_000])
        #expect(buffer.bufferedCount == 0, "no intermediate value was kept")
    }

    @Test func aWaitingConsumerIsWokenByTheNextChange() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let counts = store.values(of: \.count)
        #expect(try await collect(1, from: counts) == [0])
        let reader = Task { try await collect(1, from: counts) }
        // Whether the reader is already waiting or not, it gets the change.
        await Task.yield()
        store.send(.increment)
        #expect(try await reader.value == [1])
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
        #expect(all == [1], "the value pending at release is still delivered, then the stream ends")
    }

    @Test func droppingAStreamUnsubscribes() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        var counts: AsyncStream<Int>? = store.values(of: \.count)
        #expect(store.observerCount == 1)
        #expect(counts != nil)
        counts = nil
        #expect(store.observerCount == 0)
    }

    /// A stream of a root store together with its buffer, to check what the buffer holds.
    private func observationStream<Value: Equatable & Sendable>(
        of store: Store<Counter, CounterAction>,
        _ transform: @escaping @Sendable (Counter) -> Value
    ) throws -> (AsyncStream<Value>, LatestValueMailbox<Value>) {
        let core = try #require((store.backend as? RootBackend<Counter, CounterAction>)?.core)
        return core.observationStream(transform)
    }
}
