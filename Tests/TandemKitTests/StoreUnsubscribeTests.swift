import Testing
@testable import TandemKit

@Suite struct StoreUnsubscribeTests {
    @Test func cancellingTheConsumingTaskUnsubscribesTheStream() async throws {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let consumer = Task {
            for await _ in store.values(of: \.count) {}
        }
        try await withTimeout { while store.observerCount == 0 { await Task.yield() } }
        #expect(store.observerCount == 1)
        consumer.cancel()
        await consumer.value
        #expect(store.observerCount == 0)
    }

    @Test func cancellingATokenUnsubscribesFromAScope() {
        let store = Store(initialState: Counter(), reducer: counterReducer())
        let child = store.scope(state: \.child, action: CounterAction.child)
        let token = child.observe { _ in }
        #expect(store.observerCount == 1)
        token.cancel()
        #expect(store.observerCount == 0)
    }
}
