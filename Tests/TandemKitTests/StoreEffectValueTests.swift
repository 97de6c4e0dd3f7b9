import Synchronization
import Testing
import TandemKit

@Suite struct StoreEffectValueTests {
    @Test func effectIDsAreEqualOnlyForEqualValuesOfTheSameType() {
        #expect(EffectID("a") == EffectID("a"))
        #expect(EffectID("a") != EffectID("b"))
        #expect(EffectID(1) != EffectID("1"))
    }

    @Test func mapTransformsSentAndRunActionsAndKeepsCancellation() async throws {
        let gate = TestGate()
        let child: Effect<Int> = .merge(
            .send(1),
            .run(id: "child") { send in
                await gate.wait()
                send(2)
            }
        )
        let mapped = child.map { CounterAction.add($0 * 10) }
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            switch action {
            case .increment: mapped
            case .noop: .cancel(id: "child")
            default: .none
            }
        })
        let counts = ChangeLog(store) { $0.count }
        store.send(.increment)
        #expect(store.state.count == 11)
        gate.open()
        #expect(try await counts.first(4) == [0, 1, 11, 31])

        // The mapped operation is still registered under the child's id.
        let second = TestGate()
        let cancellable = Store(initialState: Counter(), reducer: counterReducer { action in
            switch action {
            case .increment:
                Effect<Int>.run(id: "child") { send in
                    await second.wait()
                    send(5)
                }.map { CounterAction.add($0) }
            case .noop: .cancel(id: "child")
            default: .none
            }
        })
        cancellable.send(.increment)
        #expect(cancellable.runningEffectCount == 1)
        cancellable.send(.noop)
        #expect(cancellable.runningEffectCount == 0)
        second.open()
    }

    @Test func anObservationTokenRunsItsCancelActionExactlyOnce() {
        let calls = Atomic<Int>(0)
        var token: ObservationToken? = ObservationToken { calls.add(1, ordering: .relaxed) }
        token?.cancel()
        token?.cancel()
        token = nil
        #expect(calls.load(ordering: .relaxed) == 1)
        _ = token
    }

    @Test func concurrentSendsThroughMiddlewareAreSeenExactlyOnceEach() async {
        let before = Atomic<Int>(0)
        let after = Atomic<Int>(0)
        let counting = Middleware<Counter, CounterAction>(
            willReduce: { _, _ in
                before.add(1, ordering: .relaxed)
                return .none
            },
            didReduce: { _, old, new in
                #expect(new.count == old.count + 1)
                after.add(1, ordering: .relaxed)
                return .none
            }
        )
        let store = Store(initialState: Counter(), reducer: counterReducer(), middleware: [counting])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<500 { store.send(.increment) } }
            }
        }
        #expect(store.state.count == 4_000)
        #expect(before.load(ordering: .relaxed) == 4_000)
        #expect(after.load(ordering: .relaxed) == 4_000)
    }
}
