import Testing
import TandemKit

@Suite struct PipelineRetryTests {
    @Test func backoffGrowsExponentiallyIsCappedAndJittered() {
        let policy = RetryPolicy(maxAttempts: 10, initialDelay: .milliseconds(100), multiplier: 2, maxDelay: .milliseconds(500), jitter: 0.5)
        #expect(policy.delay(beforeRetry: 1, random: 0) == .milliseconds(100))
        #expect(policy.delay(beforeRetry: 2, random: 0) == .milliseconds(200))
        #expect(policy.delay(beforeRetry: 3, random: 0) == .milliseconds(400))
        #expect(policy.delay(beforeRetry: 4, random: 0) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 60, random: 0) == .milliseconds(500))
        #expect(policy.delay(beforeRetry: 1, random: 0.5) == .milliseconds(75))
        #expect(policy.delay(beforeRetry: 2, random: 0.999_999_999) == .nanoseconds(100_000_000))
    }

    @Test func policyClampsNonsenseValues() {
        let policy = RetryPolicy(maxAttempts: 0, initialDelay: .seconds(-1), multiplier: 0.1, jitter: 7)
        #expect(policy.maxAttempts == 1)
        #expect(policy.backoff.base == .zero)
        #expect(policy.backoff.multiplier == 1)
        #expect(policy.backoff.jitter == 1)
    }

    @Test func retriesWithBackoffOnInjectedClockUntilSuccess() async throws {
        let clock = PipelineTestClock(immediate: true)
        let attempts = PipelineCounter()
        let events = FlowLog<PipelineProgress>()
        let policy = RetryPolicy(maxAttempts: 4, initialDelay: .seconds(1), multiplier: 3, jitter: 0.5)
        let pipeline = Pipeline<Int, Int>(name: "flaky", retry: policy) { value in
            attempts.increment()
            if attempts.count < 3 { throw PipelineTestError(message: "try again") }
            return value * 2
        }
        let output = try await pipeline.run(21, environment: PipelineEnvironment(clock: clock, random: { 0.5 })) { events.append($0) }
        #expect(output == 42)
        #expect(attempts.count == 3)
        #expect(clock.requestedSleeps == [.milliseconds(750), .milliseconds(2250)])
        #expect(events.all.map(\.phase) == [
            .started,
            .retrying(attempt: 2, after: .milliseconds(750)),
            .retrying(attempt: 3, after: .milliseconds(2250)),
            .finished,
        ])
    }

    @Test func exhaustedRetriesReportLastErrorAndAttemptCount() async {
        let clock = PipelineTestClock(immediate: true)
        let attempts = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "down", retry: RetryPolicy(maxAttempts: 3, jitter: 0)) { (_: Int) throws -> Int in
            attempts.increment()
            throw PipelineTestError(message: "attempt \(attempts.count)")
        }
        do {
            _ = try await pipeline.run(0, environment: PipelineEnvironment(clock: clock, random: { 0 }))
            Issue.record("expected failure")
        } catch {
            guard case let .stepFailed(_, name, count, underlying) = error else { Issue.record("unexpected \(error)"); return }
            #expect(name == "down")
            #expect(count == 3)
            #expect(underlying as? PipelineTestError == PipelineTestError(message: "attempt 3"))
        }
        #expect(clock.requestedSleeps == [.milliseconds(100), .milliseconds(200)])
    }

    @Test func shouldRetryFalseFailsAtOnce() async {
        let clock = PipelineTestClock(immediate: true)
        let attempts = PipelineCounter()
        let policy = RetryPolicy(maxAttempts: 5) { error in (error as? PipelineTestError)?.message != "fatal" }
        let pipeline = Pipeline<Int, Int>(name: "s", retry: policy) { (_: Int) throws -> Int in
            attempts.increment()
            throw PipelineTestError(message: "fatal")
        }
        await #expect(throws: PipelineError.self) { try await pipeline.run(0, environment: PipelineEnvironment(clock: clock)) }
        #expect(attempts.count == 1)
        #expect(clock.requestedSleeps.isEmpty)
    }

    @Test func timeoutCancelsTheAttemptOnTheInjectedClock() async {
        let clock = PipelineTestClock()
        let never = PipelineTestGate()
        let cancelled = PipelineCounter()
        let later = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "slow", timeout: .seconds(5)) { value in
            do { try await never.waitCancellable() } catch { cancelled.increment(); throw error }
            return value
        }
        .then(name: "later") { later.increment(); return $0 }
        let run = pipeline.start(0, environment: PipelineEnvironment(clock: clock))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(4))
        #expect(!run.isFinished)
        clock.advance(by: .seconds(1))
        let result = await run.result
        guard case let .timedOut(index, name, attempts, after)? = result.failureError else {
            Issue.record("expected timeout, got \(result)")
            return
        }
        #expect(index == 0 && name == "slow" && attempts == 1 && after == .seconds(5))
        #expect(cancelled.count == 1)
        #expect(later.count == 0)
        #expect(result.failureError?.description.contains("timed out after") == true)
    }

    @Test func fastStepBeatsItsTimeout() async throws {
        let clock = PipelineTestClock()
        let pipeline = Pipeline<Int, Int>(name: "quick", timeout: .seconds(1)) { $0 + 1 }
        #expect(try await pipeline.run(1, environment: PipelineEnvironment(clock: clock)) == 2)
    }

    @Test func timedOutAttemptIsRetried() async throws {
        let clock = PipelineTestClock()
        let attempts = PipelineCounter()
        let never = PipelineTestGate()
        let seenTimeouts = FlowLog<Duration>()
        let policy = RetryPolicy(maxAttempts: 2, initialDelay: .seconds(1), jitter: 0) { error in
            if let timeout = error as? PipelineStepTimeout { seenTimeouts.append(timeout.duration) }
            return true
        }
        let pipeline = Pipeline<Int, Int>(name: "sometimes slow", retry: policy, timeout: .seconds(2)) { value in
            attempts.increment()
            if attempts.count == 1 { try await never.waitCancellable() }
            return value
        }
        let run = pipeline.start(7, environment: PipelineEnvironment(clock: clock, random: { 0 }))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        #expect(await run.result.successValue == 7)
        #expect(attempts.count == 2)
        #expect(seenTimeouts.all == [.seconds(2)])
    }

    @Test func cancelDuringBackoffEndsAsCancelled() async {
        let clock = PipelineTestClock()
        let attempts = PipelineCounter()
        let pipeline = Pipeline<Int, Int>(name: "s", retry: RetryPolicy(maxAttempts: 3)) { (_: Int) throws -> Int in
            attempts.increment()
            throw PipelineTestError(message: "x")
        }
        let run = pipeline.start(0, environment: PipelineEnvironment(clock: clock))
        await clock.waitForSleepers(1)
        #expect(run.cancel())
        #expect(await run.result.isCancelled)
        #expect(attempts.count == 1)
    }
}
