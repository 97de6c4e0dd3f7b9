import TandemKit

/// `tandem bench pipeline`: the cost of running trivial async steps through a `Pipeline`,
/// against calling the same steps with direct `await`s in the same run.
///
/// Target: the inline pipeline costs at most 1.5× the direct calls (exit 1 otherwise). Further
/// rows report, for information, a chain whose steps all change the type (against direct calls
/// of those closures) and a controllable `PipelineRun` against the same calls inside an
/// unstructured task.
enum PipelineBenchmark {
    /// The suite registered with `tandem bench`.
    static let suite = BenchSuite(
        name: "pipeline",
        summary: "10 trivial async steps: Pipeline.run vs direct awaits (target <= 1.5x)"
    ) { runs, console in
        await run(runs: runs, console: console)
    }

    static let stepCount = 10
    static let iterations = 20_000
    static let target = 1.5

    static func run(runs: Int, console: BenchConsole) async -> Bool {
        let steps: [@Sendable (Int) async throws -> Int] = (0..<stepCount).map { offset in
            { value in value &+ offset }
        }
        // Each closure goes from the array straight into `then`, as a closure literal would. Binding
        // it to a typed local first (`for (index, step) in steps.enumerated()`) would wrap it in two
        // reabstraction thunks (array storage -> concrete type -> generic parameter), i.e. four
        // extra async frames on every call of that step, which the reference does not pay and a
        // pipeline built from literals does not either (see docs/bench/pipeline.md).
        var pipeline = Pipeline<Int, Int>()
        for index in steps.indices {
            pipeline = pipeline.then(name: "step\(index)", steps[index])
        }
        let finalPipeline = pipeline
        let environment = PipelineEnvironment()
        let expected = (0..<stepCount).reduce(0, +)

        // The reference is ten written-out awaits of the very closures the pipeline holds, taken
        // out of the array into locals once. They are opaque values built at run time, so the
        // optimizer can neither inline nor fold them: both sides run the same step code and the
        // difference is the pipeline's own cost (see docs/bench/pipeline.md).
        let (s0, s1, s2, s3, s4) = (steps[0], steps[1], steps[2], steps[3], steps[4])
        let (s5, s6, s7, s8, s9) = (steps[5], steps[6], steps[7], steps[8], steps[9])
        @Sendable func direct(_ input: Int) async throws -> Int {
            var value = try await s0(input)
            value = try await s1(value)
            value = try await s2(value)
            value = try await s3(value)
            value = try await s4(value)
            value = try await s5(value)
            value = try await s6(value)
            value = try await s7(value)
            value = try await s8(value)
            return try await s9(value)
        }

        // The same measurement for a chain whose every step changes the type (Int -> Int64 ->
        // Int ...), which the pipeline cannot run as one same-type loop. Reported, no target.
        let widen: [@Sendable (Int) async throws -> Int64] = (0..<stepCount / 2).map { offset in
            { value in Int64(value &+ offset) }
        }
        let narrow: [@Sendable (Int64) async throws -> Int] = (0..<stepCount / 2).map { offset in
            { value in Int(truncatingIfNeeded: value) &+ offset }
        }
        var mixed = Pipeline<Int, Int>()
        for index in widen.indices {
            mixed = mixed.then(name: "widen\(index)", widen[index]).then(name: "narrow\(index)", narrow[index])
        }
        let mixedPipeline = mixed
        @Sendable func directMixed(_ input: Int) async throws -> Int {
            var value = input
            for index in widen.indices { value = try await narrow[index](try await widen[index](value)) }
            return value
        }

        // Warm up caches and lazy runtime metadata before measuring.
        _ = await measure(iterations: 1_000) { try await direct($0) }
        _ = await measure(iterations: 1_000) { try await finalPipeline.run($0, environment: environment) }
        _ = await measure(iterations: 1_000) { try await mixedPipeline.run($0, environment: environment) }

        var directSamples: [Double] = []
        var pipelineSamples: [Double] = []
        var ratios: [Double] = []
        var taskSamples: [Double] = []
        var runSamples: [Double] = []
        var runRatios: [Double] = []
        var mixedDirectSamples: [Double] = []
        var mixedSamples: [Double] = []
        var mixedRatios: [Double] = []
        var checksumOK = true
        for _ in 0..<runs {
            let inline = await interleaved(iterations: iterations, { try await direct($0) }, { try await finalPipeline.run($0, environment: environment) })
            let typeChanging = await interleaved(iterations: iterations, { try await directMixed($0) }, { try await mixedPipeline.run($0, environment: environment) })
            let controlled = await interleaved(iterations: iterations / 10, { input in
                try await Task { try await direct(input) }.value
            }, { input in
                try await finalPipeline.start(input, environment: environment).value()
            })
            checksumOK = checksumOK && inline.sameResults && controlled.sameResults && typeChanging.sameResults
            mixedDirectSamples.append(typeChanging.reference)
            mixedSamples.append(typeChanging.candidate)
            mixedRatios.append(typeChanging.candidate / typeChanging.reference)
            directSamples.append(inline.reference)
            pipelineSamples.append(inline.candidate)
            ratios.append(inline.candidate / inline.reference)
            taskSamples.append(controlled.reference)
            runSamples.append(controlled.candidate)
            runRatios.append(controlled.candidate / controlled.reference)
        }
        guard checksumOK, (try? await finalPipeline.run(0, environment: environment)) == expected else {
            console.err("pipeline bench: pipeline and direct calls disagree on the result")
            return false
        }
        let directNs = directSamples.median
        let pipelineNs = pipelineSamples.median
        let taskNs = taskSamples.median
        let runNs = runSamples.median
        let ratio = ratios.median
        let runRatio = runRatios.median
        console.out("runs: \(runs) (median; ratios are medians of per-run ratios), \(iterations) iterations per run in 10 interleaved chunks, \(stepCount) steps")
        console.out(row("direct awaits (reference)", directNs, nil))
        console.out(row("Pipeline.run", pipelineNs, ratio))
        console.out(row("type-changing direct awaits (ref.)", mixedDirectSamples.median, nil))
        console.out(row("type-changing Pipeline.run", mixedSamples.median, mixedRatios.median))
        console.out(row("Task { direct awaits } (reference)", taskNs, nil))
        console.out(row("PipelineRun start + value", runNs, runRatio))
        if ratio <= target {
            console.out("target met: Pipeline.run is \(format(ratio))x direct awaits (target <= \(format(target))x)")
            return true
        }
        console.err("target missed: Pipeline.run is \(format(ratio))x direct awaits (target <= \(format(target))x)")
        return false
    }

    /// Measures `reference` and `candidate` in alternating chunks (so a change in machine load hits
    /// both alike); returns nanoseconds per call of each and whether their outputs agreed.
    private static func interleaved(
        iterations: Int,
        _ reference: (Int) async throws -> Int,
        _ candidate: (Int) async throws -> Int
    ) async -> (reference: Double, candidate: Double, sameResults: Bool) {
        let chunks = 10
        let perChunk = max(1, iterations / chunks)
        var referenceTotal = 0.0
        var candidateTotal = 0.0
        var same = true
        for _ in 0..<chunks {
            let (r, rSum) = await measure(iterations: perChunk, reference)
            let (c, cSum) = await measure(iterations: perChunk, candidate)
            referenceTotal += r
            candidateTotal += c
            same = same && rSum == cSum
        }
        return (referenceTotal / Double(chunks), candidateTotal / Double(chunks), same)
    }

    /// Runs `body` `iterations` times and returns nanoseconds per call and a checksum of the outputs.
    private static func measure(iterations: Int, _ body: (Int) async throws -> Int) async -> (Double, Int) {
        let clock = ContinuousClock()
        var checksum = 0
        let start = clock.now
        for iteration in 0..<iterations {
            checksum &+= (try? await body(iteration & 0xFF)) ?? -1
        }
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return (nanoseconds / Double(iterations), checksum)
    }

    private static func row(_ label: String, _ nanoseconds: Double, _ ratio: Double?) -> String {
        let padded = label + String(repeating: " ", count: max(1, 38 - label.count))
        let time = "\(format(nanoseconds)) ns/run"
        guard let ratio else { return "\(padded)\(time)" }
        return "\(padded)\(time)  \(format(ratio))x"
    }

    private static func format(_ value: Double) -> String {
        let scaled = (value * 100).rounded() / 100
        return String(scaled)
    }
}
