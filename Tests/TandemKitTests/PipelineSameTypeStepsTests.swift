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

    @Test func onlyPipelinesOfPlainStepsQualifyForTheUnobservedLoop() {
        let plain = Pipeline<Int, Int>(name: "a") { $0 + 1 }.then(name: "b") { $0 * 2 }
        #expect(plain.sameTypeSteps?.allPlain == true)
        #expect(plain.then(PipelineStep("retried", retry: RetryPolicy(maxAttempts: 2)) { $0 }).sameTypeSteps?.allPlain == false)
        #expect(plain.then(PipelineStep("limited", timeout: .seconds(30)) { $0 }).sameTypeSteps?.allPlain == false)
        #expect(plain.then(PipelineStep("renamed") { $0 }.named("other")).sameTypeSteps?.allPlain == true)
    }

    /// An unobserved run of plain steps has no `RunContext`: the loop itself must stop at the
    /// next boundary once the calling task is cancelled, even when no step notices.
    @Test func unobservedRunStopsBeforeTheNextStepOnceItsTaskIsCancelled() async {
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "first") { $0 + 1 }
            .then(name: "cancels") { value in
                withUnsafeCurrentTask { $0?.cancel() }
                return value
            }
            .then(name: "later") { value in later.increment(); return value }
        #expect(pipeline.sameTypeSteps?.allPlain == true)
        await #expect(throws: PipelineError.self) { try await Self.cancelledOutcome(of: pipeline) }
        #expect(later.count == 0)
    }

    @Test func unobservedRunInACancelledTaskStartsNoStep() async {
        let started = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "only") { value in started.increment(); return value }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pipeline.run(1)
        }
        let outcome = await task.result
        guard case let .failure(error) = outcome, case .cancelled? = error as? PipelineError else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
        #expect(started.count == 0)
    }

    @Test func unobservedRunNamesTheFailingStepAndRunsNoLaterStep() async {
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "inc") { $0 + 1 }
            .then(name: "fails") { (_: Int) throws -> Int in throw PipelineTestError(message: "plain step broke") }
            .then(name: "later") { value in later.increment(); return value }
        let failure = await Self.failure(of: pipeline)
        guard case let .stepFailed(index, name, attempts, underlying)? = failure else {
            Issue.record("expected stepFailed, got \(String(describing: failure))")
            return
        }
        #expect(index == 1)
        #expect(name == "fails")
        #expect(attempts == 1)
        #expect(underlying as? PipelineTestError == PipelineTestError(message: "plain step broke"))
        #expect(later.count == 0)
    }

    /// Whatever a step throws while its task is cancelled is reported as `cancelled`, as on the
    /// context path.
    @Test func unobservedRunReportsAFailureAfterCancellationAsCancelled() async {
        let pipeline = Pipeline<Int, Int>(name: "cancels and fails") { (_: Int) throws -> Int in
            withUnsafeCurrentTask { $0?.cancel() }
            throw PipelineTestError(message: "failed while cancelled")
        }
        await #expect(throws: PipelineError.self) { try await Self.cancelledOutcome(of: pipeline) }
    }

    /// Runs `pipeline` in its own task (its steps cancel that task) and rethrows the outcome's
    /// error if it is `cancelled`; records an issue otherwise.
    private static func cancelledOutcome(of pipeline: Pipeline<Int, Int>) async throws {
        let outcome = await Task { try await pipeline.run(1) }.result
        guard case let .failure(error) = outcome, case .cancelled? = error as? PipelineError else {
            Issue.record("expected cancelled, got \(outcome)")
            return
        }
        throw error
    }

    /// `Pipeline.run` installs no cancellation handler: the step boundary reads the task's
    /// cancelled bit itself, in the type-changing chain as in the loop.
    @Test func cancellingTheCallingTaskStopsATypeChangingChainBeforeTheNextStep() async {
        let later = PipelineCounter()
        await expectCancelledBeforeTheLaterStep({ first in
            Pipeline<Int, String>(name: "stubborn") { value in
                await first(value)
                return String(value)
            }
            .then(name: "later") { value in later.increment(); return value + "!" }
        }, later: later)
    }
}
