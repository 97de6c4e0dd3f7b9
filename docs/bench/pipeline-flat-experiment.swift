// A stand-alone measurement behind docs/bench/pipeline.md ("Flat loop"): ten trivial steps run as a
// typed closure chain, as a flat loop over type-erased step records (three forms), and as a typed
// loop over same-type steps, against ten direct awaits of the same closures.
//
//     swiftc -O -parse-as-library docs/bench/pipeline-flat-experiment.swift -o /tmp/flat && /tmp/flat
//     /tmp/flat local    # build every candidate from a typed local, as `for (i, s) in steps.enumerated()`
//
// Count async frames with a uprobe (as root):
//     perf probe -x /opt/swift/usr/lib/swift/linux/libswift_Concurrency.so swift_task_alloc
//     perf stat -e probe_libswift_Concurrency:swift_task_alloc /tmp/flat count ROW
import Synchronization

final class Flags: Sendable { let bits = Atomic<UInt8>(0) }

/// The pipeline's shape before the flat loop: one closure per step.
struct Chain<I: Sendable, O: Sendable>: Sendable {
    let body: @Sendable (I) async throws -> O
    func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> Chain<I, N> {
        let previous = body
        return Chain<I, N> { try await step(try await previous($0)) }
    }
}

/// Erased records `(any Sendable) -> any Sendable` with the cast inside the wrapper.
struct Erased<I: Sendable, O: Sendable>: Sendable {
    let steps: [@Sendable (any Sendable) async throws -> any Sendable]
    func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> Erased<I, N> {
        Erased<I, N>(steps: steps + [{ try await step($0 as! O) }])
    }
    func run(_ input: I, _ flags: Flags) async throws -> O {
        var value: any Sendable = input
        for step in steps {
            if flags.bits.load(ordering: .acquiring) != 0 { throw CancellationError() }
            value = try await step(value)
        }
        return value as! O
    }
}

/// Erased records that move the value through one buffer (no existential, no dynamic cast).
struct Slots<I: Sendable, O: Sendable>: Sendable {
    let steps: [@Sendable (UnsafeMutableRawPointer) async throws -> Void]
    let size: Int
    func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> Slots<I, N> {
        Slots<I, N>(steps: steps + [{ buffer in
            let input = buffer.assumingMemoryBound(to: O.self).move()
            buffer.bindMemory(to: N.self, capacity: 1).initialize(to: try await step(input))
        }], size: max(size, MemoryLayout<N>.stride))
    }
    func run(_ input: I, _ flags: Flags) async throws -> O {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(size, MemoryLayout<I>.stride, 1), alignment: 16)
        defer { buffer.deallocate() }
        buffer.bindMemory(to: I.self, capacity: 1).initialize(to: input)
        for step in steps {
            if flags.bits.load(ordering: .acquiring) != 0 { throw CancellationError() }
            try await step(buffer)
        }
        return buffer.assumingMemoryBound(to: O.self).move()
    }
}

/// Erased records as generic subclasses (a vtable call instead of a closure's forwarder).
class AnyStep: @unchecked Sendable {
    func call(_ value: any Sendable) async throws -> any Sendable { fatalError("abstract") }
}
final class StepBox<A: Sendable, B: Sendable>: AnyStep, @unchecked Sendable {
    let body: @Sendable (A) async throws -> B
    init(_ body: @escaping @Sendable (A) async throws -> B) { self.body = body }
    override func call(_ value: any Sendable) async throws -> any Sendable { try await body(value as! A) }
}
struct Boxed<I: Sendable, O: Sendable>: Sendable {
    let steps: [AnyStep]
    func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> Boxed<I, N> {
        Boxed<I, N>(steps: steps + [StepBox(step)])
    }
    func run(_ input: I, _ flags: Flags) async throws -> O {
        var value: any Sendable = input
        for step in steps {
            if flags.bits.load(ordering: .acquiring) != 0 { throw CancellationError() }
            value = try await step.call(value)
        }
        return value as! O
    }
}

/// What `Pipeline` now does for same-type steps: a typed loop calling the user's closures.
struct SameType<T: Sendable>: Sendable {
    let steps: [@Sendable (T) async throws -> T]
    func then(_ step: @escaping @Sendable (T) async throws -> T) -> SameType<T> { SameType(steps: steps + [step]) }
    func run(_ input: T, _ flags: Flags) async throws -> T {
        var value = input
        var offset = 0
        while offset < steps.count {
            if flags.bits.load(ordering: .acquiring) != 0 { throw CancellationError() }
            value = try await steps[offset](value)
            offset += 1
        }
        return value
    }
}

@main enum Main {
    static func measure(_ n: Int, _ body: (Int) async throws -> Int) async -> Double {
        let clock = ContinuousClock()
        var sum = 0
        let start = clock.now
        for i in 0..<n { sum &+= (try? await body(i & 0xFF)) ?? 0 }
        let elapsed = clock.now - start
        if sum == 42 { print("unlikely") }
        return (Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9) / Double(n)
    }
    static func main() async { await Task.detached { await run() }.value }
    nonisolated static func run() async {
        let arguments = CommandLine.arguments.dropFirst()
        let fromLocal = arguments.contains("local")
        let steps: [@Sendable (Int) async throws -> Int] = (0..<10).map { k in { v in v &+ k } }
        let (s0, s1, s2, s3, s4) = (steps[0], steps[1], steps[2], steps[3], steps[4])
        let (s5, s6, s7, s8, s9) = (steps[5], steps[6], steps[7], steps[8], steps[9])
        @Sendable func direct(_ x: Int) async throws -> Int {
            var v = try await s0(x); v = try await s1(v); v = try await s2(v); v = try await s3(v); v = try await s4(v)
            v = try await s5(v); v = try await s6(v); v = try await s7(v); v = try await s8(v); return try await s9(v)
        }
        var chain = Chain<Int, Int> { $0 }
        var erased = Erased<Int, Int>(steps: [])
        var slots = Slots<Int, Int>(steps: [], size: 8)
        var boxed = Boxed<Int, Int>(steps: [])
        var same = SameType<Int>(steps: [])
        if fromLocal {
            // A typed local costs two reabstraction thunks per closure handed to a generic API.
            for (_, step) in steps.enumerated() {
                chain = chain.then(step); erased = erased.then(step); slots = slots.then(step)
                boxed = boxed.then(step); same = same.then(step)
            }
        } else {
            for index in steps.indices {
                chain = chain.then(steps[index]); erased = erased.then(steps[index]); slots = slots.then(steps[index])
                boxed = boxed.then(steps[index]); same = same.then(steps[index])
            }
        }
        let flags = Flags()
        let (c, e, sl, b, st) = (chain, erased, slots, boxed, same)
        // Literal closures at each call, not an array of rows: a stored closure would add
        // reabstraction thunks to every row alike.
        func sample(_ row: String) async -> Double {
            switch row {
            case "chain": await measure(2000) { try await c.body($0) }
            case "erased": await measure(2000) { try await e.run($0, flags) }
            case "slots": await measure(2000) { try await sl.run($0, flags) }
            case "boxed": await measure(2000) { try await b.run($0, flags) }
            case "same-type": await measure(2000) { try await st.run($0, flags) }
            default: await measure(2000) { try await direct($0) }
            }
        }
        let rows = ["direct", "chain", "erased", "slots", "boxed", "same-type"]
        if let index = arguments.firstIndex(of: "count") {
            for _ in 0..<50 { _ = await sample(arguments[index + 1]) }
            return
        }
        var samples: [String: [Double]] = [:]
        for _ in 0..<70 {
            for row in rows { samples[row, default: []].append(await sample(row)) }
        }
        let directMedian = samples["direct"]!.sorted()[35]
        for row in rows {
            let median = samples[row]!.sorted()[35]
            print(row, Int(median), "ns", "\(Double(Int(median / directMedian * 100)) / 100)x")
        }
    }
}
