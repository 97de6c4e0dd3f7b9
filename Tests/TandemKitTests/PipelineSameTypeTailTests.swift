import Testing
@testable import TandemKit

/// Runs of same-type plain steps execute in one loop (`SameTypeTail`); these tests pin that a
/// chain mixing that form with type-changing and policy-wrapped steps behaves as one waterfall.
@Suite struct PipelineSameTypeTailTests {
    private static func started(_ events: [PipelineProgress]) -> [String] {
        events.filter { $0.phase == .started }.map { "\($0.index):\($0.name)" }
    }

    @Test func mixedChainsKeepOrderIndicesAndProgress() async throws {
        let events = FlowLog<PipelineProgress>()
        let pipeline = Pipeline<Int, Int>()
            .then(name: "a") { $0 + 1 }
            .then(name: "b") { $0 * 2 }
            .then(name: "text") { "n\($0)" }
            .then(name: "c") { $0 + "!" }
            .then(name: "d") { $0 + "?" }
        #expect(pipeline.stepNames == ["a", "b", "text", "c", "d"])
        #expect(pipeline.tail != nil, "the last two steps form a same-type tail after a type change")
        #expect(try await pipeline.run(4) { events.append($0) } == "n10!?")
        #expect(Self.started(events.all) == ["0:a", "1:b", "2:text", "3:c", "4:d"])
        #expect(events.all.count == 10)
        #expect(events.all.allSatisfy { $0.count == 5 })
    }

    @Test func aFailureInATailAfterAHeadNamesTheRightStep() async throws {
        let later = PipelineCounter()
        let pipeline = Pipeline<String, Int>(name: "parse") { Int($0) ?? 0 }
            .then(name: "double") { $0 * 2 }
            .then(name: "check") { (value: Int) throws -> Int in
                guard value < 10 else { throw PipelineTestError(message: "too big") }
                return value
            }
            .then(name: "after") { value in later.increment(); return value }
        #expect(try await pipeline.run("3") == 6)
        #expect(later.count == 1)
        do {
            _ = try await pipeline.run("7")
            Issue.record("expected a failure")
        } catch {
            guard case let .stepFailed(index, name, attempts, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(index == 2)
            #expect(name == "check")
            #expect(attempts == 1)
        }
        #expect(later.count == 1, "no step after the failing one runs")
    }

    @Test func aPolicyStepBetweenSameTypeStepsKeepsItsRetries() async throws {
        let attempts = PipelineCounter()
        let events = FlowLog<PipelineProgress>()
        let flaky = PipelineStep<Int, Int>("flaky", retry: RetryPolicy(maxAttempts: 3, initialDelay: .zero)) { value in
            attempts.increment()
            if attempts.count < 2 { throw PipelineTestError(message: "once") }
            return value + 100
        }
        let pipeline = Pipeline<Int, Int>(name: "one") { $0 + 1 }
            .then(flaky)
            .then(name: "three") { $0 * 2 }
        #expect(pipeline.tail?.headCount == 2, "a retried step ends a tail; the next plain step starts another")
        #expect(try await pipeline.run(0, environment: PipelineEnvironment(clock: ImmediateClock())) { events.append($0) } == 202)
        #expect(attempts.count == 2)
        #expect(Self.started(events.all) == ["0:one", "1:flaky", "2:three"])
    }

    @Test func composingPipelinesWithTailsKeepsGlobalIndices() async throws {
        let events = FlowLog<PipelineProgress>()
        let first = Pipeline<Int, Int>(name: "x") { $0 + 1 }.then(name: "y") { $0 + 1 }
        let second = Pipeline<Int, Int>(name: "z") { $0 * 3 }.then(name: "w") { $0 - 1 }
        let whole = first.then(second).then(name: "v") { $0 + 1000 }
        #expect(try await whole.run(0) { events.append($0) } == 1005)
        #expect(Self.started(events.all) == ["0:x", "1:y", "2:z", "3:w", "4:v"])
    }
}
