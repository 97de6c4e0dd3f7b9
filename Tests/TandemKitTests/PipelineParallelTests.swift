import Testing
import TandemKit

@Suite struct PipelineParallelTests {
    @Test func runsChildrenConcurrentlyAndYieldsBothOutputs() async throws {
        // Each child waits for the other to have started: only concurrent children can finish.
        let aStarted = PipelineTestGate()
        let bStarted = PipelineTestGate()
        let pipeline = Pipeline<Int, Int>().parallel(
            name: "both",
            PipelineStep("a") { (value: Int) async throws -> String in
                aStarted.open()
                try await bStarted.waitCancellable()
                return "a\(value)"
            },
            PipelineStep("b") { (value: Int) async throws -> Int in
                bStarted.open()
                try await aStarted.waitCancellable()
                return value * 2
            }
        )
        let (text, number) = try await pipeline.run(4)
        #expect(text == "a4")
        #expect(number == 8)
    }

    @Test func firstErrorCancelsSiblingsAndStopsTheChain() async {
        let siblingCancelled = PipelineCounter()
        let never = PipelineTestGate()
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, Int>().parallel(
            name: "publish",
            PipelineStep("uploadImage") { (_: Int) async throws -> Int in
                do { try await never.waitCancellable() } catch { siblingCancelled.increment(); throw error }
                return 1
            },
            PipelineStep("postText") { (_: Int) async throws -> Int in
                throw PipelineTestError(message: "server said no")
            }
        )
        .then(name: "toast") { _ in later.increment() }
        do {
            try await pipeline.run(0)
            Issue.record("expected failure")
        } catch {
            #expect(error.stepName == "publish/postText")
            #expect(error.stepIndex == 0)
            #expect(error.underlying as? PipelineTestError == PipelineTestError(message: "server said no"))
        }
        #expect(siblingCancelled.count == 1)
        #expect(later.count == 0)
    }

    @Test func arrayFormKeepsChildOrderWhateverFinishesFirst() async throws {
        let releaseFirst = PipelineTestGate()
        let children = (0..<4).map { index in
            PipelineStep<Int, Int>("child\(index)") { value in
                if index == 0 { try await releaseFirst.waitCancellable() }
                if index == 3 { releaseFirst.open() }
                return value + index
            }
        }
        let pipeline = Pipeline<Int, Int>(name: "start") { $0 * 10 }.parallel(name: "fan-out", children).then(name: "sum") { $0.reduce(0, +) }
        #expect(pipeline.stepNames == ["start", "fan-out", "sum"])
        #expect(try await Pipeline<Int, Int>().parallel(name: "p", children).run(10) == [10, 11, 12, 13])
        #expect(try await pipeline.run(1) == 46)
    }

    @Test func childRetryAndTimeoutApplyInsideParallelStep() async throws {
        let clock = PipelineTestClock(immediate: true)
        let attempts = PipelineCounter()
        let pipeline = Pipeline<Int, Int>().parallel(name: "p", [
            PipelineStep("flaky", retry: RetryPolicy(maxAttempts: 2, jitter: 0)) { (value: Int) throws -> Int in
                attempts.increment()
                if attempts.count == 1 { throw PipelineTestError(message: "once") }
                return value
            },
        ])
        #expect(try await pipeline.run(3, environment: PipelineEnvironment(clock: clock)) == [3])
        #expect(clock.requestedSleeps == [.milliseconds(100)])
    }

    @Test func cancellingRunCancelsAllChildren() async {
        let never = PipelineTestGate()
        let started = PipelineCounter()
        let cancelled = PipelineCounter()
        let bothStarted = PipelineTestGate()
        let child = PipelineStep<Int, Int>("wait") { value in
            started.increment()
            if started.count == 2 { bothStarted.open() }
            do { try await never.waitCancellable() } catch { cancelled.increment(); throw error }
            return value
        }
        let run = Pipeline<Int, Int>().parallel(name: "p", [child, child.named("wait again")]).start(0)
        try? await bothStarted.waitCancellable()
        #expect(run.cancel())
        #expect(await run.result.isCancelled)
        #expect(cancelled.count == 2)
    }
}
