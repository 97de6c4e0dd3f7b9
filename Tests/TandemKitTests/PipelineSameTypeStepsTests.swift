import Testing
@testable import TandemKit

/// The flat loop that runs pipelines whose steps all keep one type, and its hand-over to the
/// closure chain once a step changes the type.
@Suite struct PipelineSameTypeStepsTests {
    @Test func sameTypeStepsStayFlatUntilAStepChangesTheType() {
        let flat = Pipeline<Int, Int>()
            .then(name: "a") { $0 + 1 }
            .then(PipelineStep("b", retry: RetryPolicy(maxAttempts: 2)) { $0 * 2 })
        #expect(flat.sameTypeSteps?.names == ["a", "b"])
        #expect(flat.sameTypeSteps?.plain.map { $0 != nil } == [true, false])
        #expect(Pipeline<Int, Int>(name: "one") { $0 }.sameTypeSteps?.names == ["one"])

        let changed = flat.then(name: "text") { String($0) }
        #expect(changed.sameTypeSteps == nil)
        #expect(changed.then(name: "again") { $0 + "!" }.sameTypeSteps == nil)
        #expect(Pipeline<Int, String>(name: "text") { String($0) }.sameTypeSteps == nil)
        #expect(flat.then(flat).sameTypeSteps == nil)
    }

    @Test func loopThenChainKeepIndicesProgressAndOutput() async throws {
        let events = FlowLog<PipelineProgress>()
        let pipeline = Pipeline<Int, Int>(name: "inc") { $0 + 1 }
            .then(name: "double") { $0 * 2 }
            .then(name: "text") { String($0) }
            .then(name: "shout") { $0 + "!" }
        #expect(try await pipeline.run(4) { events.append($0) } == "10!")
        let expected = ["inc", "double", "text", "shout"].enumerated().flatMap { index, name in
            [PipelineProgress(index: index, count: 4, name: name, phase: .started),
             PipelineProgress(index: index, count: 4, name: name, phase: .finished)]
        }
        #expect(events.all == expected)
    }

    @Test func failuresInTheLoopAndInTheChainNameTheirStep() async {
        let loopFailure = await Self.failure(of: Pipeline<Int, Int>(name: "inc") { $0 + 1 }
            .then(name: "fails") { (_: Int) throws -> Int in throw PipelineTestError(message: "loop step broke") }
            .then(name: "text") { String($0) })
        #expect(loopFailure?.stepIndex == 1)
        #expect(loopFailure?.stepName == "fails")
        #expect(loopFailure?.underlying as? PipelineTestError == PipelineTestError(message: "loop step broke"))

        let chainFailure = await Self.failure(of: Pipeline<Int, Int>(name: "inc") { $0 + 1 }
            .then(name: "text") { String($0) }
            .then(name: "fails") { (_: String) throws -> String in throw PipelineTestError(message: "chain step broke") })
        #expect(chainFailure?.stepIndex == 2)
        #expect(chainFailure?.stepName == "fails")
        #expect(chainFailure?.underlying as? PipelineTestError == PipelineTestError(message: "chain step broke"))
    }

    private static func failure<Output>(of pipeline: Pipeline<Int, Output>) async -> PipelineError? {
        do {
            _ = try await pipeline.run(0)
            return nil
        } catch {
            return error
        }
    }

    /// `Pipeline.run` installs no cancellation handler: the step boundary reads the task's
    /// cancelled bit itself, in the type-changing chain as in the loop.
    @Test func cancellingTheCallingTaskStopsATypeChangingChainBeforeTheNextStep() async {
        let entered = PipelineTestGate()
        let release = PipelineTestGate()
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, String>(name: "stubborn") { value in
            entered.open()
            await release.waitIgnoringCancellation()
            return String(value)
        }
        .then(name: "later") { value in later.increment(); return value + "!" }
        let task = Task { try await pipeline.run(1) }
        try? await entered.waitCancellable()
        task.cancel()
        release.open()
        let outcome = await task.result
        guard case let .failure(error) = outcome, case .cancelled? = error as? PipelineError else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
        #expect(later.count == 0)
    }
}
