import Dispatch
import Synchronization
import Testing
import TandemKit

@Suite struct StoreConcurrencyTests {
    @Test func concurrentSendsFromManyTasksAreAllReducedExactlyOnce() async {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let notifications = Atomic<Int>(0)
        let lastSeen = Mutex(0)
        let token = store.observe { state in
            notifications.add(1, ordering: .relaxed)
            lastSeen.withLock { last in
                #expect(state.count == last + 1, "observers see every state, in order")
                last = state.count
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    for _ in 0..<2_000 { store.send(.increment) }
                }
            }
        }
        #expect(store.state.count == 32_000)
        #expect(notifications.load(ordering: .relaxed) == 32_000)
        token.cancel()
    }

    @Test func concurrentSendsFromThreadsKeepEachSendersOrder() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        DispatchQueue.concurrentPerform(iterations: 8) { sender in
            for index in 0..<250 { store.send(.record("\(sender):\(index)")) }
        }
        let log = store.state.log
        #expect(log.count == 2_000)
        for sender in 0..<8 {
            let mine = log.filter { $0.hasPrefix("\(sender):") }
            #expect(mine == (0..<250).map { "\(sender):\($0)" })
        }
    }

    @Test func effectsSendingConcurrentlyAreAllApplied() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer { action in
            guard action == .noop else { return .none }
            return .merge((0..<50).map { _ in .run { send in send(.increment) } })
        })
        let counts = store.values(of: \.count)
        store.send(.noop)
        let seen = try await withTimeout {
            var last = 0
            for await count in counts where count == 50 {
                last = count
                break
            }
            return last
        }
        #expect(seen == 50)
        #expect(store.state.count == 50)
    }
}
