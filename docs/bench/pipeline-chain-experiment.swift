// A stand-alone measurement behind docs/bench/pipeline.md ("Why 1.5x is out of reach"): the cost of
// a bare typed closure chain (no pause/cancel flag, no progress, no error mapping) against ten
// direct awaits of the same closures, with ordinary (`@Sendable`, concurrent) closures and with
// caller-isolated (`nonisolated(nonsending)`) ones.
//
//     swiftc -O -parse-as-library docs/bench/pipeline-chain-experiment.swift -o /tmp/chain && /tmp/chain
//
// Rows (median ns per run of ten steps): direct = ten awaits of concurrent closures (the
// benchmark's reference); directN = the same with caller-isolated closures; chain = a chain of
// concurrent closures (the Pipeline's shape); nchain = caller-isolated chain, concurrent steps;
// nschain = caller-isolated chain and steps; nschain-concurrent-steps = caller-isolated chain fed
// the concurrent steps (each converted at `then`).

struct Chain<I: Sendable, O: Sendable>: Sendable {
    typealias Body = @Sendable (I, Int) async throws -> O
    let body: Body
    @inlinable func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> Chain<I, N> {
        let previous = body
        return Chain<I, N>(body: { input, base in try await step(try await previous(input, base)) })
    }
}
struct NChain<I: Sendable, O: Sendable>: Sendable {
    typealias Body = nonisolated(nonsending) @Sendable (I, Int) async throws -> O
    let body: Body
    @inlinable func then<N: Sendable>(_ step: @escaping @Sendable (O) async throws -> N) -> NChain<I, N> {
        let previous = body
        return NChain<I, N>(body: { input, base in try await step(try await previous(input, base)) })
    }
}
struct NSChain<I: Sendable, O: Sendable>: Sendable {
    typealias Body = nonisolated(nonsending) @Sendable (I, Int) async throws -> O
    typealias Step<A, B> = nonisolated(nonsending) @Sendable (A) async throws -> B
    let body: Body
    @inlinable func then<N: Sendable>(_ step: @escaping Step<O, N>) -> NSChain<I, N> {
        let previous = body
        return NSChain<I, N>(body: { input, base in try await step(try await previous(input, base)) })
    }
}

@main enum Main {
    static func measure(_ n: Int, _ body: (Int) async throws -> Int) async -> Double {
        let clock = ContinuousClock()
        var sum = 0
        let start = clock.now
        for i in 0..<n { sum &+= (try? await body(i & 0xFF)) ?? 0 }
        let e = clock.now - start
        if sum == 42 { print("x") }
        return (Double(e.components.seconds) * 1e9 + Double(e.components.attoseconds) / 1e9) / Double(n)
    }
    static func main() async { await Task.detached { await run() }.value }
    nonisolated static func run() async {
        let nsteps0: [nonisolated(nonsending) @Sendable (Int) async throws -> Int] = (0..<10).map { k in { v in v &+ k } }
        let steps: [@Sendable (Int) async throws -> Int] = (0..<10).map { k in { v in v &+ k } }
        let (s0, s1, s2, s3, s4) = (steps[0], steps[1], steps[2], steps[3], steps[4])
        let (s5, s6, s7, s8, s9) = (steps[5], steps[6], steps[7], steps[8], steps[9])
        @Sendable func direct(_ x: Int) async throws -> Int {
            var v = try await s0(x); v = try await s1(v); v = try await s2(v); v = try await s3(v); v = try await s4(v)
            v = try await s5(v); v = try await s6(v); v = try await s7(v); v = try await s8(v); return try await s9(v)
        }
        let (n0, n1, n2, n3, n4) = (nsteps0[0], nsteps0[1], nsteps0[2], nsteps0[3], nsteps0[4])
        let (n5, n6, n7, n8, n9) = (nsteps0[5], nsteps0[6], nsteps0[7], nsteps0[8], nsteps0[9])
        @Sendable nonisolated(nonsending) func directN(_ x: Int) async throws -> Int {
            var v = try await n0(x); v = try await n1(v); v = try await n2(v); v = try await n3(v); v = try await n4(v)
            v = try await n5(v); v = try await n6(v); v = try await n7(v); v = try await n8(v); return try await n9(v)
        }
        var c = Chain<Int, Int>(body: { x, _ in x })
        var n = NChain<Int, Int>(body: { x, _ in x })
        var ns = NSChain<Int, Int>(body: { x, _ in x })
        let nsteps = nsteps0
        for s in steps { c = c.then(s); n = n.then(s) }
        for s in nsteps { ns = ns.then(s) }
        var nsc = NSChain<Int, Int>(body: { x, _ in x })
        for s in steps { nsc = nsc.then(s) }
        let nscc = nsc
        let (cc, nn, nss) = (c, n, ns)
        var r: [String: [Double]] = [:]
        for _ in 0..<7 {
            for _ in 0..<10 {
                r["direct", default: []].append(await measure(2000) { try await direct($0) })
                r["directN", default: []].append(await measure(2000) { try await directN($0) })
                r["nschain-concurrent-steps", default: []].append(await measure(2000) { try await nscc.body($0, 0) })
                r["chain", default: []].append(await measure(2000) { try await cc.body($0, 0) })
                r["nchain", default: []].append(await measure(2000) { try await nn.body($0, 0) })
                r["nschain", default: []].append(await measure(2000) { try await nss.body($0, 0) })
            }
        }
        for (k, v) in r.sorted(by: { $0.key < $1.key }) { print(k, v.sorted()[v.count / 2]) }
    }
}
