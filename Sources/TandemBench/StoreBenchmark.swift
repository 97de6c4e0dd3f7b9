#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TandemSynchronization
import TandemKit

/// `tandem bench store`: the cost of one dispatched action through a TandemKit `Store`.
///
/// Cases, each with a trivial reducer (`count += 1`) and each timed as the median of `runs` runs:
/// one synchronous observer; 1,000 observers; one observer with the action sent through a scope
/// of depth 1 and of depth 5. The reference, measured in the same run, is the least a locked
/// dispatch can cost: a reducer closure called inside `Locked.withLock`. Every case reads the final
/// state and the observers' running sum and checks them, so the work cannot be optimised away.
/// Times are the benchmarking thread's CPU time, so a shared, busy machine that deschedules the
/// thread does not inflate them.
enum StoreBenchmark {
    /// The suite as `tandem bench` lists it.
    static let suite = BenchSuite(
        name: "store",
        summary: "ns per dispatched action (1 and 1,000 observers, scope depth 1 and 5) vs a locked closure call"
    ) { runs, console in
        run(runs: runs, console: console)
    }

    /// The targets: at most 1 µs per action with one observer, 0.3 µs per observer notified with
    /// 1,000 observers, and depth-5 dispatch within 1.2× of depth 1.
    static let maxNanosecondsWithOneObserver = 1_000.0
    static let maxNanosecondsPerObserver = 300.0
    static let maxDepthRatio = 1.2

    static func run(runs: Int, console: BenchConsole) -> Bool {
        let actions = 1_000_000
        let fanOutActions = 5_000
        let fanOut = 1_000
        var samples: [String: [Double]] = [:]
        var failures: [String] = []

        // One warm-up round, then `runs` measured rounds with the cases interleaved, so that
        // frequency changes or a noisy neighbour affect every case alike.
        for round in 0...runs {
            let measured: [(String, Result)] = [
                ("reference", reference(actions: actions)),
                ("one", store(actions: actions, observers: 1)),
                ("fanOut", store(actions: fanOutActions, observers: fanOut)),
                ("depth1", scoped(actions: actions, depth: 1)),
                ("depth5", scoped(actions: actions, depth: 5)),
            ]
            for (name, result) in measured {
                if let problem = result.problem { failures.append("\(name): \(problem)") }
                if round > 0 { samples[name, default: []].append(result.nanosecondsPerAction) }
            }
        }

        let reference = samples["reference"]!.median
        let one = samples["one"]!.median
        let fanOutTotal = samples["fanOut"]!.median
        let perObserver = fanOutTotal / Double(fanOut)
        let depth1 = samples["depth1"]!.median
        let depth5 = samples["depth5"]!.median

        console.out("median of \(runs) run(s); \(actions) actions per case (\(fanOutActions) with \(fanOut) observers)")
        console.out(row("case", "ns/action", "× reference", "target"))
        console.out(row("reference: closure in Locked.withLock", format(reference), "1.00", "—"))
        console.out(row("store, 1 observer", format(one), format(one / reference), "≤ 1000 ns"))
        console.out(row("store, 1,000 observers", format(fanOutTotal), format(fanOutTotal / reference), "—"))
        console.out(row("  per observer notified", format(perObserver), "—", "≤ 300 ns"))
        console.out(row("scope depth 1, 1 observer", format(depth1), format(depth1 / reference), "—"))
        console.out(row("scope depth 5, 1 observer", format(depth5), format(depth5 / reference), "≤ 1.2 × depth 1"))
        console.out("depth 5 / depth 1: \(format(depth5 / depth1))")

        if one > maxNanosecondsWithOneObserver { failures.append("1 observer: \(format(one)) ns > \(format(maxNanosecondsWithOneObserver)) ns") }
        if perObserver > maxNanosecondsPerObserver { failures.append("per observer: \(format(perObserver)) ns > \(format(maxNanosecondsPerObserver)) ns") }
        if depth5 / depth1 > maxDepthRatio { failures.append("depth 5 / depth 1: \(format(depth5 / depth1)) > \(format(maxDepthRatio))") }
        for failure in failures { console.err("store bench: target missed: \(failure)") }
        return failures.isEmpty ? true : false
    }

    // MARK: - Cases

    /// One case's timing and, if the work was not all done, what went wrong.
    struct Result {
        var nanosecondsPerAction: Double
        var problem: String?
    }

    private static func reference(actions: Int) -> Result {
        let reducer: @Sendable (inout Level0, Action0) -> Effect<Action0> = { state, _ in
            state.count += 1
            return .none
        }
        let state = Locked(Level0())
        let sink = Sink()
        let elapsed = measure {
            for _ in 0..<actions {
                let count: Int = state.withLock { state in
                    _ = reducer(&state, .increment)
                    return state.count
                }
                sink.total &+= count
            }
        }
        return check(elapsed, actions: actions, count: state.withLock { $0.count }, sink: sink, observers: 1)
    }

    private static func store(actions: Int, observers: Int) -> Result {
        let store = Store(initialState: Level0(), reducer: countingReducer)
        let sink = Sink()
        let tokens = (0..<observers).map { _ in store.observe { sink.total &+= $0.count } }
        let elapsed = measure {
            for _ in 0..<actions { store.send(.increment) }
        }
        let result = check(elapsed, actions: actions, count: store.state.count, sink: sink, observers: observers)
        for token in tokens { token.cancel() }
        return result
    }

    private static func scoped(actions: Int, depth: Int) -> Result {
        let store = Store(initialState: Level0(), reducer: countingReducer)
        let sink = Sink()
        let token = store.observe { sink.total &+= $0.count }
        let level1 = store.scope(state: \.child, action: Action0.child)
        let elapsed: Double
        if depth == 1 {
            elapsed = measure {
                for _ in 0..<actions { level1.send(.increment) }
            }
        } else {
            let level5 = level1
                .scope(state: \.child, action: Action1.child)
                .scope(state: \.child, action: Action2.child)
                .scope(state: \.child, action: Action3.child)
                .scope(state: \.child, action: Action4.child)
            elapsed = measure {
                for _ in 0..<actions { level5.send(.increment) }
            }
        }
        let result = check(elapsed, actions: actions, count: store.state.count, sink: sink, observers: 1)
        token.cancel()
        return result
    }

    /// Checks that every action was reduced and every observer saw every state: the observers'
    /// sum must be `observers × (1 + 2 + … + actions)`.
    private static func check(_ elapsed: Double, actions: Int, count: Int, sink: Sink, observers: Int) -> Result {
        let expectedSum = observers &* (actions &* (actions + 1) / 2)
        var problem: String?
        if count != actions {
            problem = "final count \(count), expected \(actions)"
        } else if sink.total != expectedSum {
            problem = "observers summed \(sink.total), expected \(expectedSum)"
        }
        return Result(nanosecondsPerAction: elapsed / Double(actions), problem: problem)
    }

    // MARK: - Helpers

    /// The observers' running sum. Only the single benchmarking thread drains the store, so
    /// observers never run concurrently.
    private final class Sink: @unchecked Sendable {
        var total = 0
    }

    private static let countingReducer: @Sendable (inout Level0, Action0) -> Effect<Action0> = { state, _ in
        state.count += 1
        return .none
    }

    /// The CPU time the calling thread spends in `work`, in nanoseconds. CPU time rather than
    /// wall time, so that time the thread spends descheduled on a shared machine is not counted.
    private static func measure(_ work: () -> Void) -> Double {
        let start = threadCPUTime()
        work()
        return threadCPUTime() - start
    }

    private static func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
    }

    private static func format(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return String(scaled)
    }

    private static func row(_ columns: String...) -> String {
        let widths = [38, 12, 13, 16]
        return zip(columns, widths).map { column, width in
            column.count >= width ? column : column + String(repeating: " ", count: width - column.count)
        }.joined(separator: " ")
    }

    // Six nested levels of state and actions, as a feature tree would have: plain enums and
    // structs, so embedding an action allocates nothing.
    struct Level5: Sendable { var count = 0 }
    struct Level4: Sendable { var count = 0; var child = Level5() }
    struct Level3: Sendable { var count = 0; var child = Level4() }
    struct Level2: Sendable { var count = 0; var child = Level3() }
    struct Level1: Sendable { var count = 0; var child = Level2() }
    struct Level0: Sendable { var count = 0; var child = Level1() }

    enum Action5: Sendable { case increment }
    enum Action4: Sendable { case increment, child(Action5) }
    enum Action3: Sendable { case increment, child(Action4) }
    enum Action2: Sendable { case increment, child(Action3) }
    enum Action1: Sendable { case increment, child(Action2) }
    enum Action0: Sendable { case increment, child(Action1) }
}
