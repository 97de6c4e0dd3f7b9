import Synchronization
import TandemKit

/// A counter feature: enough state and actions to exercise dispatch, effects and ordering.
struct Counter: Equatable, Sendable {
    var count = 0
    var log: [String] = []
    var child = Child()

    struct Child: Equatable, Sendable {
        var value = 0
        var grandchild = Grandchild()
    }

    struct Grandchild: Equatable, Sendable {
        var value = 0
    }
}

enum CounterAction: Equatable, Sendable {
    case increment
    case add(Int)
    case noop
    case record(String)
    case child(ChildAction)

    enum ChildAction: Equatable, Sendable {
        case set(Int)
        case grandchild(GrandchildAction)
    }

    enum GrandchildAction: Equatable, Sendable {
        case set(Int)
    }
}

/// A reducer for `Counter` whose extra behaviour (effects, side calls) is supplied per test.
func counterReducer(
    effects: @escaping @Sendable (CounterAction) -> Effect<CounterAction> = { _ in .none }
) -> Store<Counter, CounterAction>.Reducer {
    { state, action in
        switch action {
        case .increment:
            state.count += 1
        case .add(let amount):
            state.count += amount
        case .noop:
            break
        case .record(let entry):
            state.log.append(entry)
        case .child(.set(let value)):
            state.child.value = value
        case .child(.grandchild(.set(let value))):
            state.child.grandchild.value = value
        }
        return effects(action)
    }
}

/// A one-shot latch an async test double waits on until the test opens it.
final class TestGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// A thread-safe append-only log that tests read at the end.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])

    func append(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Holds a store for code (reducers, middleware) created before the store exists.
final class StoreReference<State: Sendable, Action: Sendable>: Sendable {
    private let reference = Mutex<Store<State, Action>?>(nil)

    func set(_ store: Store<State, Action>?) { reference.withLock { $0 = store } }
    func send(_ action: Action) { reference.withLock { $0 }?.send(action) }
}

/// A weak reference, to check what a store's lifetime depends on.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// A clock whose sleeps end at once, so timeout paths run without waiting.
struct ImmediateClock: Clock {
    typealias Duration = Swift.Duration
    typealias Instant = ContinuousClock.Instant

    var now: Instant { ContinuousClock.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        await Task.yield()
    }
}

enum TimeoutError: Error {
    case timedOut
}

/// Runs `operation`, failing with `TimeoutError` if it takes longer than `limit`; a guard against
/// hanging tests, not a way to wait.
func withTimeout<T: Sendable>(
    _ limit: Duration = .seconds(5),
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimeoutError.timedOut
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// The first `count` values of `stream`, with a guard against hanging.
func collect<Value: Sendable>(_ count: Int, from stream: AsyncStream<Value>) async throws -> [Value] {
    try await withTimeout {
        var values: [Value] = []
        for await value in stream {
            values.append(value)
            if values.count == count { break }
        }
        return values
    }
}

/// Every change of `transform(state)`, the current value first, consecutive duplicates removed —
/// recorded synchronously by an observer, so (unlike a latest-wins stream) no intermediate value
/// is skipped. For tests that check the sequence of states effects produce.
final class ChangeLog<Value: Equatable & Sendable>: Sendable {
    private let values = Recorder<Value>()
    private let token = Mutex<ObservationToken?>(nil)

    init<State, Action>(_ store: Store<State, Action>, _ transform: @escaping @Sendable (State) -> Value) {
        values.append(transform(store.state))
        // Observers are called one at a time, so reading the last value and appending need no lock together.
        let observation = store.observe { [values] state in
            let value = transform(state)
            if values.all.last != value { values.append(value) }
        }
        token.withLock { $0 = observation }
    }

    /// The first `count` recorded values, waiting (bounded) until there are that many.
    func first(_ count: Int) async throws -> [Value] {
        try await withTimeout { [values] in
            while true {
                let recorded = values.all
                if recorded.count >= count { return Array(recorded.prefix(count)) }
                await Task.yield()
            }
        }
    }
}
