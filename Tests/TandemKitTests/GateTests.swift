import Synchronization
import Testing
import TandemKit

/// An ordered record of what ran, written from any task.
private final class RunLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

/// Counts operations running at the same moment.
private final class Concurrency: Sendable {
    private let running = Mutex(0)
    func enter() -> Int { running.withLock { $0 += 1; return $0 } }
    func leave() { running.withLock { $0 -= 1 } }
}

private struct LoginRejected: Error, CustomStringConvertible {
    var description: String { "bad signature" }
}

private func waitUntil(_ condition: () async -> Bool) async {
    while !(await condition()) { await Task.yield() }
}

@Suite struct GateTests {
    @Test func operationsWaitForTheConditionAndRunInSubmissionOrder() async throws {
        let gate = Gate<String>(name: "login")
        let log = RunLog()
        let first = Task { try await gate.run { user in log.add("profile for \(user)"); return 1 } }
        await waitUntil { await gate.waitingCount == 1 }
        let second = Task { try await gate.run { user in log.add("avatar for \(user)"); return 2 } }
        await waitUntil { await gate.waitingCount == 2 }
        #expect(log.all.isEmpty)
        await gate.open("alice")
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(log.all == ["profile for alice", "avatar for alice"])
        // Once open, an operation runs straight away.
        #expect(try await gate.run { "now for \($0)" } == "now for alice")
    }

    @Test func operationsRunOneAtATime() async throws {
        let gate = Gate<Int>(name: "session")
        let log = RunLog()
        let running = Concurrency()
        let tasks = (0..<20).map { index in
            Task {
                try await gate.run { _ in
                    let overlapping = running.enter()
                    if overlapping > 1 { log.add("overlap") }
                    await Task.yield()
                    running.leave()
                    log.add("op \(index)")
                }
            }
        }
        await waitUntil { await gate.waitingCount == 20 }
        await gate.open(1)
        for task in tasks { try await task.value }
        #expect(!log.all.contains("overlap"))
        #expect(log.all.count == 20)
    }

    @Test func failingTheConditionFailsWaitingOperationsWithoutRunningThem() async {
        let gate = Gate<String>(name: "IM login")
        let log = RunLog()
        let waiting = Task { try await gate.run { _ in log.add("ran") } }
        await waitUntil { await gate.waitingCount == 1 }
        await gate.fail(LoginRejected())
        await #expect(throws: GateError.conditionFailed(gate: "IM login", reason: "bad signature")) { try await waiting.value }
        #expect(log.all.isEmpty)
        #expect(await !gate.isOpen)
        #expect(GateError.conditionFailed(gate: "IM login", reason: "bad signature").description.contains("once IM login succeeds"))
    }

    @Test func finishingFailsWaitingAndLaterOperationsAndTheGateNeverOpensAgain() async {
        let gate = Gate<String>(name: "session")
        let log = RunLog()
        let waiting = Task { try await gate.run { _ in log.add("ran") } }
        await waitUntil { await gate.waitingCount == 1 }
        await gate.finish(LoginRejected())
        let expected = GateError.finished(gate: "session", reason: "bad signature")
        await #expect(throws: expected) { try await waiting.value }
        await gate.open("late")
        #expect(await !gate.isOpen, "a finished gate ignores open")
        await #expect(throws: expected) { try await gate.run { _ in log.add("ran") } }
        await gate.finish(CancellationError())
        await #expect(throws: expected, "the first reason is kept") { try await gate.run { _ in log.add("ran") } }
        #expect(log.all.isEmpty)
        #expect(expected.description.contains("will not open again"))
    }

    @Test func closingKeepsOperationsQueuedUntilTheNextOpen() async throws {
        let gate = Gate<String>(name: "session")
        await gate.open("s1")
        await gate.close()
        let queued = Task { try await gate.run { "ran in \($0)" } }
        await waitUntil { await gate.waitingCount == 1 }
        await gate.open("s2")
        #expect(try await queued.value == "ran in s2")
    }

    @Test func hooksRunOnEveryOpenBeforeWaitingOperations() async throws {
        let gate = Gate<Int>(name: "session")
        let log = RunLog()
        await gate.onEveryOpen { session in log.add("send profile on \(session)") }
        let op = Task { try await gate.run { session in log.add("op on \(session)") } }
        await waitUntil { await gate.waitingCount == 1 }
        await gate.open(1)
        try await op.value
        await gate.close()
        await gate.open(2)
        try await gate.run { _ in }  // runs after the hook of opening 2
        #expect(log.all == ["send profile on 1", "op on 1", "send profile on 2"])
        // A hook registered while open runs once now.
        await gate.onEveryOpen { session in log.add("late hook on \(session)") }
        try await gate.run { _ in }
        #expect(log.all.last == "late hook on 2")
    }

    @Test func cancellingAWaitingCallerWithdrawsItsOperation() async throws {
        let gate = Gate<Int>(name: "session")
        let log = RunLog()
        let cancelled = Task { try await gate.run { _ in log.add("cancelled one ran") } }
        await waitUntil { await gate.waitingCount == 1 }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(await gate.waitingCount == 0)
        await gate.open(1)
        try await gate.run { _ in log.add("next") }
        #expect(log.all == ["next"])
    }

    @Test func anOperationsOwnErrorReachesItsCaller() async {
        let gate = Gate<Int>(name: "session")
        await gate.open(1)
        await #expect(throws: LoginRejected.self) { try await gate.run { _ in throw LoginRejected() } }
    }
}

@Suite struct GateHookTests {
    @Test func aRemovedHookNoLongerRunsOnOpening() async throws {
        let gate = Gate<Int>(name: "session")
        let log = RunLog()
        let kept = await gate.onEveryOpen { log.add("kept \($0)") }
        let removed = await gate.onEveryOpen { log.add("removed \($0)") }
        #expect(kept != removed)
        await gate.open(1)
        try await gate.run { _ in }
        await gate.removeHook(removed)
        await gate.close()
        await gate.open(2)
        try await gate.run { _ in }
        #expect(log.all == ["kept 1", "removed 1", "kept 2"])
    }
}
