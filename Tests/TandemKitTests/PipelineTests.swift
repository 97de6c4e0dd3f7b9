import Testing
@testable import TandemKit

@Suite struct PipelineTests {
    static func counting(_ log: FlowLog<String>) -> Pipeline<Int, String> {
        Pipeline<Int, Int>(name: "double") { value in
            log.append("double")
            return value * 2
        }
        .then(name: "wait") { (value: Int) async throws -> Int in
            log.append("wait")
            await Task.yield()
            return value + 1
        }
        .then(name: "describe") { value in
            log.append("describe")
            return "value \(value)"
        }
    }

    @Test func runsTypedSyncAndAsyncStepsInOrder() async throws {
        let log = FlowLog<String>()
        let pipeline = Self.counting(log)
        #expect(pipeline.stepNames == ["double", "wait", "describe"])
        #expect(pipeline.count == 3)
        let output: String = try await pipeline.run(20)
        #expect(output == "value 41")
        #expect(log.all == ["double", "wait", "describe"])
    }

    @Test func emptyPipelinePassesInputThrough() async throws {
        #expect(try await Pipeline<String, String>().run("same") == "same")
        let chained = Pipeline<Int, Int>().then(name: "inc") { $0 + 1 }
        #expect(try await chained.run(1) == 2)
        #expect(chained.stepNames == ["inc"])
    }

    @Test func firstErrorStopsTheChain() async {
        let log = FlowLog<String>()
        let pipeline = Pipeline<Int, Int>(name: "a") { log.append("a"); return $0 }
            .then(name: "b") { (_: Int) throws -> Int in
                log.append("b")
                throw PipelineTestError(message: "b broke")
            }
            .then(name: "c") { value in log.append("c"); return value }
        do {
            _ = try await pipeline.run(1)
            Issue.record("expected a failure")
        } catch {
            guard case let .stepFailed(index, name, attempts, underlying) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(index == 1)
            #expect(name == "b")
            #expect(attempts == 1)
            #expect(underlying as? PipelineTestError == PipelineTestError(message: "b broke"))
            #expect(error.description == "pipeline step 2 'b' failed after 1 attempt: b broke")
        }
        #expect(log.all == ["a", "b"])
    }

    @Test func composedPipelinesKeepGlobalStepIndices() async throws {
        let events = FlowLog<PipelineProgress>()
        let head = Pipeline<Int, Int>(name: "one") { $0 + 1 }.then(name: "two") { $0 + 1 }
        let tail = Pipeline<Int, Int>(name: "three") { $0 * 10 }.then(name: "four") { String($0) }
        let whole = head.then(tail)
        #expect(whole.stepNames == ["one", "two", "three", "four"])
        #expect(try await whole.run(0) { events.append($0) } == "20")
        #expect(events.all == [
            PipelineProgress(index: 0, count: 4, name: "one", phase: .started),
            PipelineProgress(index: 0, count: 4, name: "one", phase: .finished),
            PipelineProgress(index: 1, count: 4, name: "two", phase: .started),
            PipelineProgress(index: 1, count: 4, name: "two", phase: .finished),
            PipelineProgress(index: 2, count: 4, name: "three", phase: .started),
            PipelineProgress(index: 2, count: 4, name: "three", phase: .finished),
            PipelineProgress(index: 3, count: 4, name: "four", phase: .started),
            PipelineProgress(index: 3, count: 4, name: "four", phase: .finished),
        ])
        #expect(events.all[2].description == "step 2 of 4 'two': started")
    }

    @Test func cancellingTheCallingTaskCancelsTheStepAndStopsTheChain() async {
        let gate = PipelineTestGate()
        let entered = PipelineTestGate()
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "block") { value in
            entered.open()
            try await gate.waitCancellable()
            return value
        }
        .then(name: "later") { value in later.increment(); return value }
        let task = Task { try await pipeline.run(1) }
        try? await entered.waitCancellable()
        task.cancel()
        let outcome = await task.result
        #expect(throws: PipelineError.self) { try outcome.get() }
        if case let .failure(error) = outcome, let error = error as? PipelineError, case .cancelled = error {} else {
            Issue.record("expected cancelled, got \(outcome)")
        }
        #expect(later.count == 0)
    }

    @Test func cancellingTheCallingTaskDuringNonCooperativeStepStopsBeforeNextStep() async {
        let later = PipelineCounter()
        await expectCancelledBeforeTheLaterStep({ first in
            Pipeline<Int, Int>(name: "stubborn") { value in
                await first(value)
                return value
            }
            .then(name: "later") { value in later.increment(); return value }
        }, later: later)
    }

    @Test func runDeliversSuccessToResultAndCompletionOnce() async throws {
        let completions = PipelineCounter()
        let delivered = FlowLog<String>()
        let progress = FlowLog<PipelineProgress>()
        let run = Self.counting(FlowLog()).makeRun(1, completion: { result in
            completions.increment()
            delivered.append(result.successValue ?? "?")
        }, onProgress: { progress.append($0) })
        #expect(!run.isRunning)
        run.start()
        run.start()
        #expect(await run.result.successValue == "value 3")
        #expect(try await run.value() == "value 3")
        #expect(completions.count == 1)
        #expect(delivered.all == ["value 3"])
        #expect(progress.all.map(\.name) == ["double", "double", "wait", "wait", "describe", "describe"])
        #expect(run.isFinished)
        #expect(!run.isRunning)
        #expect(!run.cancel())
        #expect(!run.isCancelled)
        #expect(completions.count == 1)
    }

    @Test func runDeliversFirstFailureOnce() async {
        let completions = PipelineCounter()
        let later = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "fail") { (_: Int) throws -> Int in throw PipelineTestError(message: "no") }
            .then(name: "later") { later.increment(); return $0 }
            .start(0) { _ in completions.increment() }
        let result = await run.result
        #expect(result.failureError?.stepName == "fail")
        #expect(result.failureError?.stepIndex == 0)
        #expect(completions.count == 1)
        #expect(later.count == 0)
    }

    @Test func cancelBeforeStartCompletesAsCancelledAndNeverRuns() async {
        let completions = PipelineCounter()
        let ran = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "s") { ran.increment(); return $0 }.makeRun(0) { result in
            #expect(result.isCancelled)
            completions.increment()
        }
        #expect(run.cancel())
        #expect(!run.cancel())
        run.start()
        #expect(await run.result.isCancelled)
        await #expect(throws: PipelineError.self) { try await run.value() }
        #expect(completions.count == 1)
        #expect(ran.count == 0)
        #expect(run.isCancelled)
    }

    @Test func cancelDuringStepCancelsItCooperativelyAndSkipsTheRest() async {
        let entered = PipelineTestGate()
        let never = PipelineTestGate()
        let sawCancellation = PipelineCounter()
        let later = PipelineCounter()
        let completions = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "network") { value in
            entered.open()
            do {
                try await never.waitCancellable()
            } catch {
                sawCancellation.increment()
                throw error
            }
            return value
        }
        .then(name: "parse") { later.increment(); return $0 }
        .start(0) { _ in completions.increment() }
        try? await entered.waitCancellable()
        #expect(run.isRunning)
        #expect(run.cancel())
        #expect(run.isCancelled)
        #expect(!run.isRunning)
        #expect(await run.result.isCancelled)
        #expect(sawCancellation.count == 1)
        #expect(later.count == 0)
        #expect(completions.count == 1)
    }

    @Test func pauseTakesEffectBetweenStepsAndResumeContinues() async throws {
        let entered = PipelineTestGate()
        let release = PipelineTestGate()
        let second = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "first") { value in
            entered.open()
            try await release.waitCancellable()
            return value + 1
        }
        .then(name: "second") { second.increment(); return $0 * 10 }
        .makeRun(1)
        let updates = run.progressUpdates()
        run.start()
        try await entered.waitCancellable()
        run.pause()
        #expect(run.isPaused)
        #expect(!run.isRunning)
        release.open()
        let seen = await updates.events { $0.phase == .paused }
        #expect(seen.last == PipelineProgress(index: 1, count: 2, name: "second", phase: .paused))
        #expect(seen.map(\.phase) == [.started, .finished, .paused])
        #expect(second.count == 0)
        run.resume()
        #expect(await run.result.successValue == 20)
        #expect(second.count == 1)
    }

    @Test func pauseBeforeStartWaitsBeforeFirstStep() async {
        let ran = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "only") { ran.increment(); return $0 }.makeRun(5)
        let updates = run.progressUpdates()
        run.pause()
        run.start()
        let seen = await updates.events { $0.phase == .paused }
        #expect(seen == [PipelineProgress(index: 0, count: 1, name: "only", phase: .paused)])
        #expect(ran.count == 0)
        run.resume()
        #expect(await run.result.successValue == 5)
        #expect(ran.count == 1)
    }

    @Test func cancelWhilePausedEndsAsCancelled() async {
        let ran = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "only") { ran.increment(); return $0 }.makeRun(5)
        let updates = run.progressUpdates()
        run.pause()
        run.start()
        _ = await updates.events { $0.phase == .paused }
        #expect(run.cancel())
        #expect(await run.result.isCancelled)
        #expect(ran.count == 0)
    }

    @Test func progressStreamEndsWhenRunFinishes() async {
        let run = Self.counting(FlowLog()).makeRun(1)
        let updates = run.progressUpdates()
        run.start()
        var phases: [PipelineProgress.Phase] = []
        for await event in updates { phases.append(event.phase) }
        #expect(phases == [.started, .finished, .started, .finished, .started, .finished])
        let late = run.progressUpdates()
        var lateCount = 0
        for await _ in late { lateCount += 1 }
        #expect(lateCount == 0)
    }

    @Test func completionHandlersFireExactlyOnceEvenWhenRegisteredLate() async {
        let early = PipelineCounter()
        let late = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "s") { $0 }.makeRun(1)
        run.onCompletion { _ in early.increment() }
        run.start()
        _ = await run.result
        run.onCompletion { _ in late.increment() }
        #expect(early.count == 1)
        #expect(late.count == 1)
    }

    @Test func cancelRacingTheLastStepCompletesExactlyOnce() async {
        let pipeline = Pipeline<Int, Int>(name: "last") { $0 + 1 }
        for iteration in 0..<1_000 {
            let completions = PipelineCounter()
            let outcomes = FlowLog<Bool>()
            let run = pipeline.makeRun(iteration) { result in
                completions.increment()
                outcomes.append(result.isCancelled)
            }
            run.start()
            let canceller = Task { run.cancel() }
            if iteration.isMultiple(of: 2) { await Task.yield() }
            let result = await run.result
            let cancelTookEffect = await canceller.value
            #expect(completions.count == 1)
            #expect(result.isCancelled == cancelTookEffect)
            #expect(outcomes.all == [cancelTookEffect])
            if !cancelTookEffect { #expect(result.successValue == iteration + 1) }
        }
    }

    @Test func compatibilitySurfaceMatchesWaterfallControls() async {
        let completions = PipelineCounter()
        let run = Pipeline<Int, Int>(name: "s") { $0 }.makeRun(1) { _ in completions.increment() }
        let control: any PipelineControl = run
        #expect(!control.isRunning)
        #expect(!control.isCancelled)
        control.resume()
        _ = await run.result
        #expect(completions.count == 1)
        #expect(!control.cancel())
    }
}
