import Synchronization
import Testing
import TandemKit

@Suite struct StoreTests {
    @Test func sendReducesSynchronouslyWhenIdle() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        store.send(.increment)
        store.send(.add(41))
        #expect(store.state.count == 42)
    }

    @Test func sendEffectDispatchesAfterTheCurrentAction() {
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            action == .record("a") ? .merge(.send(.record("b")), .send(.record("c"))) : .none
        })
        store.send(.record("a"))
        #expect(store.state.log == ["a", "b", "c"])
    }

    @Test func runEffectFeedsActionsBack() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            guard action == .increment else { return .none }
            return .run { send in send(.add(10)) }
        })
        let counts = ChangeLog(store) { $0.count }
        store.send(.increment)
        #expect(try await counts.first(3) == [0, 1, 11])
    }

    @Test func throwingRunReportsItsErrorThroughCatch() async throws {
        struct Failure: Error {}
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            guard action == .increment else { return .none }
            return .run { _ in throw Failure() } catch: { error, send in
                send(.record("caught \(type(of: error))"))
            }
        })
        let logs = ChangeLog(store) { $0.log }
        store.send(.increment)
        #expect(try await logs.first(2) == [[], ["caught Failure"]])
    }

    @Test func cancelByIDStopsTheOperationAndDropsItsLateSends() async throws {
        let gate = TestGate()
        let sawCancellation = Recorder<Bool>()
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            switch action {
            case .increment:
                return .run(id: "slow") { send in
                    await gate.wait()
                    sawCancellation.append(Task.isCancelled)
                    send(.add(100))
                }
            case .noop:
                return .cancel(id: "slow")
            default:
                return .none
            }
        })
        store.send(.increment)
        #expect(store.runningEffectCount == 1)
        store.send(.noop)
        #expect(store.runningEffectCount == 0)
        gate.open()
        try await withTimeout { while sawCancellation.all.isEmpty { await Task.yield() } }
        #expect(sawCancellation.all == [true])
        #expect(store.state.count == 1)
    }

    @Test func cancellableWithCancelInFlightKeepsOnlyTheNewestOperation() async throws {
        let gate = TestGate()
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            guard case .add(let amount) = action, amount < 100 else { return .none }
            return Effect.run { send in
                await gate.wait()
                send(.add(100 * amount))
            }.cancellable(id: "search", cancelInFlight: true)
        })
        let counts = ChangeLog(store) { $0.count }
        store.send(.add(1))
        store.send(.add(2))
        #expect(store.runningEffectCount == 1)
        gate.open()
        // 1, then 1 + 2, then the surviving operation's 200; the cancelled one's 100 never lands.
        #expect(try await counts.first(4) == [0, 1, 3, 203])
    }

    @Test func releasingTheStoreCancelsRunningEffects() async throws {
        let cancelled = Recorder<Bool>()
        let started = TestGate()
        let release = TestGate()
        var store: Store<Counter, CounterAction>? = Store(initialState: Counter(), reducer: counterReducer { action in
            guard action == .increment else { return .none }
            return .run { _ in
                started.open()
                await withTaskCancellationHandler {
                    await release.wait()
                } onCancel: {
                    cancelled.append(true)
                }
            }
        })
        store?.send(.increment)
        await started.wait()
        #expect(cancelled.all.isEmpty)
        store = nil
        #expect(cancelled.all == [true])
        release.open()
    }

    @Test func middlewareSeesEveryActionBeforeAndAfterReduction() {
        let seen = Recorder<String>()
        let logger = Middleware<Counter, CounterAction>(
            willReduce: { action, state in
                seen.append("will \(action) at \(state.count)")
                return .none
            },
            didReduce: { action, old, new in
                seen.append("did \(action) \(old.count)→\(new.count)")
                return .none
            }
        )
        let store = Store(initialState: Counter(), reducer: counterReducer(), middleware: [logger])
        store.send(.increment)
        store.send(.add(5))
        #expect(seen.all == [
            "will increment at 0", "did increment 0→1",
            "will add(5) at 1", "did add(5) 1→6",
        ])
    }

    @Test func middlewareDispatchesAreQueuedInOrderAfterTheCurrentAction() {
        let reference = StoreReference<Counter, CounterAction>()
        let trace = Middleware<Counter, CounterAction>(
            willReduce: { action, _ in
                guard action == .record("a") else { return .none }
                reference.send(.record("from willReduce, direct"))
                return .send(.record("from willReduce, effect"))
            },
            didReduce: { action, _, new in
                guard action == .record("a") else { return .none }
                #expect(new.log == ["a"], "queued actions must not run reentrantly")
                return .send(.record("from didReduce"))
            }
        )
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            action == .record("a") ? .send(.record("from reducer")) : .none
        }, middleware: [trace])
        reference.set(store)
        store.send(.record("a"))
        #expect(store.state.log == [
            "a",
            "from willReduce, direct",
            "from willReduce, effect",
            "from reducer",
            "from didReduce",
        ])
        reference.set(nil)
    }

    @Test func sendFromInsideTheReducerIsQueuedNotReentrant() {
        let reference = StoreReference<Counter, CounterAction>()
        let depth = Mutex(0)
        let maxDepth = Mutex(0)
        let base = counterReducer()
        let store = Store<Counter, CounterAction>(initialState: Counter()) { state, action in
            let current = depth.withLock { $0 += 1; return $0 }
            maxDepth.withLock { $0 = max($0, current) }
            if action == .record("a") { reference.send(.record("b")) }
            let effect = base(&state, action)
            depth.withLock { $0 -= 1 }
            return effect
        }
        reference.set(store)
        store.send(.record("a"))
        #expect(store.state.log == ["a", "b"])
        #expect(maxDepth.withLock { $0 } == 1)
        reference.set(nil)
    }

    @Test func sendsAfterTheRootIsReleasedAreDropped() {
        var store: Store<Counter, CounterAction>? = Store(initialState: Counter(), reducer: counterReducer())
        let child = store!.scope(state: \.child, action: CounterAction.child)
        store?.send(.increment)
        store = nil
        child.send(.set(7))
        #expect(child.state.value == 0)
    }
}
