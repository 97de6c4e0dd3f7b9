// A stand-alone measurement behind docs/bench/pipeline.md ("Unobserved runs"): what the step
// boundary of the same-type loop costs, i.e. everything a loop over ten trivial steps does besides
// calling them, against ten direct awaits of the same closures.
//
//     swiftc -O -parse-as-library docs/bench/pipeline-boundary-experiment.swift -o /tmp/boundary
//     /tmp/boundary                       # every row, median of 151 interleaved samples
//     /tmp/boundary rows direct task none # only these rows
//     /tmp/boundary check-cost            # ns per cancelled-bit check, outside any loop of steps
//
// Count runtime calls per run with uprobes (as root), e.g.
//     perf probe -x /opt/swift/usr/lib/swift/linux/libswift_Concurrency.so swift_task_switch
//     perf stat -e probe_libswift_Concurrency:swift_task_switch /tmp/boundary count task
// (`count ROW` makes 200,000 runs of one row; subtract `count empty`, which makes none.)
//
// Rows (each a loop over the same ten closures unless said otherwise):
//   direct     ten written-out awaits (the benchmark's reference)
//   context    the loop before this round: a context object per run, pause/cancel flag, the task's
//              cancelled bit and a progress check per step
//   task       no context, `Task.isCancelled` per step (what `Pipeline.run` now does unobserved)
//   cached     the task looked up once per run (`withUnsafeCurrentTask`), its `isCancelled` per step
//   handler    `withTaskCancellationHandler` per run setting a local atomic, the atomic per step
//   nonsending `task` as a `nonisolated(nonsending)` function
//   span       `task` reading the closures through `Array.span`
//   flag       a context object per run and its atomic flag per step, no cancelled bit (a bound)
//   none       no check at all (the floor of a loop: retain, call, release, executor hop per step)
import Synchronization

final class Context: Sendable {
    let flags = Atomic<UInt8>(0)
    let progress: (@Sendable (Int) -> Void)?
    let waiter = Mutex<Int>(0)
    init(progress: (@Sendable (Int) -> Void)?) { self.progress = progress }
}

struct Stopped: Error {}

struct Steps<Value: Sendable>: Sendable {
    var steps: [@Sendable (Value) async throws -> Value] = []

    @inline(never)
    func context(_ input: Value) async throws -> Value {
        let context = Context(progress: nil)
        var value = input
        var offset = 0
        while offset < steps.count {
            if context.flags.load(ordering: .acquiring) != 0 || Task.isCancelled { throw Stopped() }
            if let progress = context.progress { progress(offset) }
            value = try await steps[offset](value)
            if let progress = context.progress { progress(offset) }
            offset += 1
        }
        return value
    }

    @inline(never)
    func task(_ input: Value) async throws -> Value {
        var value = input
        var offset = 0
        while offset < steps.count {
            if Task.isCancelled { throw Stopped() }
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }

    @inline(never)
    func cached(_ input: Value) async throws -> Value {
        guard let task = withUnsafeCurrentTask(body: { $0 }) else { return try await none(input) }
        var value = input
        var offset = 0
        while offset < steps.count {
            if task.isCancelled { throw Stopped() }
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }

    @inline(never)
    func handler(_ input: Value) async throws -> Value {
        let cancelled = Atomic<Bool>(false)
        return try await withTaskCancellationHandler {
            var value = input
            var offset = 0
            while offset < steps.count {
                if cancelled.load(ordering: .acquiring) { throw Stopped() }
                value = try await steps[offset](value)
                offset += 1
            }
            return value
        } onCancel: {
            cancelled.store(true, ordering: .releasing)
        }
    }

    @inline(never)
    nonisolated(nonsending) func nonsending(_ input: Value) async throws -> Value {
        var value = input
        var offset = 0
        while offset < steps.count {
            if Task.isCancelled { throw Stopped() }
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }

    @inline(never)
    func span(_ input: Value) async throws -> Value {
        var value = input
        var offset = 0
        let span = steps.span
        while offset < span.count {
            if Task.isCancelled { throw Stopped() }
            value = try await span[offset](value)
            offset += 1
        }
        return value
    }

    @inline(never)
    func flag(_ input: Value) async throws -> Value {
        let context = Context(progress: nil)
        var value = input
        var offset = 0
        while offset < steps.count {
            if context.flags.load(ordering: .acquiring) != 0 { throw Stopped() }
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }

    @inline(never)
    func none(_ input: Value) async throws -> Value {
        var value = input
        var offset = 0
        while offset < steps.count {
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }
}

@inline(never) func checkTask(_ count: Int) -> Int {
    var cancelled = 0
    for _ in 0..<count where Task.isCancelled { cancelled += 1 }
    return cancelled
}

@inline(never) func checkCached(_ task: UnsafeCurrentTask, _ count: Int) -> Int {
    var cancelled = 0
    for _ in 0..<count where task.isCancelled { cancelled += 1 }
    return cancelled
}

@main enum Main {
    static func nanoseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
    }

    static func measure(_ count: Int, _ body: (Int) async throws -> Int) async -> Double {
        let clock = ContinuousClock()
        var sum = 0
        let start = clock.now
        for index in 0..<count { sum &+= (try? await body(index & 0xFF)) ?? 0 }
        let elapsed = clock.now - start
        if sum == 42 { print("unlikely") }
        return nanoseconds(elapsed) / Double(count)
    }

    static func main() async { await Task.detached { await run() }.value }

    nonisolated static func run() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "check-cost" {
            let clock = ContinuousClock()
            let count = 10_000_000
            for _ in 0..<3 {
                var start = clock.now
                let viaTask = checkTask(count)
                let taskNs = nanoseconds(clock.now - start) / Double(count)
                guard let task = withUnsafeCurrentTask(body: { $0 }) else { return }
                start = clock.now
                let viaCached = checkCached(task, count)
                let cachedNs = nanoseconds(clock.now - start) / Double(count)
                print("Task.isCancelled \(Int(taskNs * 10) / 10) ns, cached task \(Int(cachedNs * 10) / 10) ns", viaTask + viaCached)
            }
            return
        }
        let closures: [@Sendable (Int) async throws -> Int] = (0..<10).map { k in { v in v &+ k } }
        let (s0, s1, s2, s3, s4) = (closures[0], closures[1], closures[2], closures[3], closures[4])
        let (s5, s6, s7, s8, s9) = (closures[5], closures[6], closures[7], closures[8], closures[9])
        @Sendable func direct(_ x: Int) async throws -> Int {
            var v = try await s0(x); v = try await s1(v); v = try await s2(v); v = try await s3(v); v = try await s4(v)
            v = try await s5(v); v = try await s6(v); v = try await s7(v); v = try await s8(v); return try await s9(v)
        }
        var built = Steps<Int>()
        for index in closures.indices { built.steps.append(closures[index]) }
        let steps = built
        func sample(_ row: String) async -> Double {
            switch row {
            case "context": await measure(2000) { try await steps.context($0) }
            case "task": await measure(2000) { try await steps.task($0) }
            case "cached": await measure(2000) { try await steps.cached($0) }
            case "handler": await measure(2000) { try await steps.handler($0) }
            case "nonsending": await measure(2000) { try await steps.nonsending($0) }
            case "span": await measure(2000) { try await steps.span($0) }
            case "flag": await measure(2000) { try await steps.flag($0) }
            case "none": await measure(2000) { try await steps.none($0) }
            case "empty": 0
            default: await measure(2000) { try await direct($0) }
            }
        }
        if arguments.first == "count", arguments.count > 1 {
            // 100 samples of 2,000 runs: divide a uprobe's count by 200,000 (minus the empty row).
            for _ in 0..<100 { _ = await sample(arguments[1]) }
            return
        }
        let rows = arguments.first == "rows" ? Array(arguments.dropFirst())
            : ["direct", "context", "task", "cached", "handler", "nonsending", "span", "flag", "none"]
        var samples: [String: [Double]] = [:]
        for _ in 0..<151 {
            for row in rows { samples[row, default: []].append(await sample(row)) }
        }
        let reference = samples[rows[0]]!.sorted()[75]
        for row in rows {
            let median = samples[row]!.sorted()[75]
            print(row, Int(median), "ns", "\(Double(Int(median / reference * 100)) / 100)x")
        }
    }
}
