import Synchronization
import TandemTesting
import Testing
import TandemKit

/// Collects violations the bridge reports.
private final class ViolationLog: Sendable {
    private let items = Mutex<[CallbackViolation]>([])
    var all: [CallbackViolation] { items.withLock { $0 } }
    func report(_ violation: CallbackViolation) { items.withLock { $0.append(violation) } }
}

/// Keeps callbacks that a fake SDK has not called yet, like a vendor library would.
private final class PendingCallbacks<Value: Sendable>: Sendable {
    private let stored = Mutex<[CallbackResumer<Value>]>([])
    var count: Int { stored.withLock { $0.count } }
    func keep(_ resumer: CallbackResumer<Value>) { stored.withLock { $0.append(resumer) } }
    func first() -> CallbackResumer<Value>? { stored.withLock { $0.first } }
    func releaseAll() { stored.withLock { $0.removeAll() } }
}

private enum SampleError: Error, Equatable {
    case rejected
}

@Suite struct ServicesCallbackBridgeTests {
    @Test func theFirstCallbackResumesAndASecondIsReportedNotDelivered() async throws {
        let log = ViolationLog()
        let bridge = CallbackBridge(reporter: log.report)
        let value: Int = try await bridge.call("fetchCount") { done in
            done.resume(returning: 3)
            done.resume(returning: 4)
            done.resume(throwing: SampleError.rejected)
        }
        #expect(value == 3)
        #expect(log.all == [
            CallbackViolation(operation: "fetchCount", kind: .duplicateCallback),
            CallbackViolation(operation: "fetchCount", kind: .duplicateCallback),
        ])
    }

    @Test func aFailureCallbackThrowsItsError() async {
        let bridge = CallbackBridge(reporter: { _ in })
        await #expect(throws: SampleError.rejected) {
            try await bridge.call("login") { (done: CallbackResumer<Void>) in done.resume(throwing: SampleError.rejected) }
        }
    }

    @Test func callbacksFromOtherThreadsResumeExactlyOnce() async throws {
        let log = ViolationLog()
        let bridge = CallbackBridge(reporter: log.report)
        for round in 0..<50 {
            let value: Int = try await bridge.call("race") { done in
                for attempt in 0..<4 {
                    Task.detached { done.resume(returning: round * 10 + attempt) }
                }
            }
            #expect(value / 10 == round)
        }
        // Each round resumes once; the other three callbacks are reported (once they have run).
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while log.all.count < 150 && ContinuousClock.now < deadline { await Task.yield() }
        #expect(log.all.count == 150)
        #expect(log.all.allSatisfy { $0.kind == .duplicateCallback })
    }

    @Test func aCallbackThatNeverComesTimesOutAndALateOneIsReported() async {
        let clock = ManualClock()
        let log = ViolationLog()
        let bridge = CallbackBridge(clock: clock, defaultTimeout: .seconds(10), reporter: log.report)
        let pending = PendingCallbacks<Int>()
        let call = Task { try await bridge.call("getUsersInfo") { pending.keep($0) } }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(9))
        #expect(log.all.isEmpty)
        clock.advance(by: .seconds(1))
        await #expect(throws: CallbackBridgeError.timedOut(operation: "getUsersInfo", after: .seconds(10))) { try await call.value }
        pending.first()?.resume(returning: 1)
        #expect(log.all == [CallbackViolation(operation: "getUsersInfo", kind: .callbackAfterTimeout)])
    }

    @Test func aPerCallTimeoutOverridesTheDefaultAndTheTimerStopsOnSuccess() async throws {
        let clock = ManualClock()
        let bridge = CallbackBridge(clock: clock, defaultTimeout: .seconds(10), reporter: { _ in })
        let pending = PendingCallbacks<String>()
        let call = Task { try await bridge.call("quick", timeout: .seconds(1)) { pending.keep($0) } }
        await clock.waitForSleepers(1)
        pending.first()?.resume(returning: "ok")
        #expect(try await call.value == "ok")
        while clock.sleeperCount > 0 { await Task.yield() }
        #expect(clock.sleeperCount == 0, "the time-out timer must be cancelled")
    }

    @Test func cancellingTheWaitingTaskThrowsAndALateCallbackIsReported() async {
        let log = ViolationLog()
        let bridge = CallbackBridge(reporter: log.report)
        let pending = PendingCallbacks<Int>()
        let call = Task { try await bridge.call("setSelfInfo") { pending.keep($0) } }
        while pending.count == 0 { await Task.yield() }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        pending.first()?.resume(returning: 1)
        #expect(log.all == [CallbackViolation(operation: "setSelfInfo", kind: .callbackAfterCancellation)])
    }

    @Test func anAlreadyCancelledTaskNeverStartsTheCall() async {
        let bridge = CallbackBridge(reporter: { _ in })
        let started = Mutex(false)
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await bridge.call("never") { (_: CallbackResumer<Int>) in started.withLock { $0 = true } }
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(!started.withLock { $0 })
    }

    @Test func callbacksReleasedWithoutBeingCalledFailLoudly() async {
        let log = ViolationLog()
        let bridge = CallbackBridge(reporter: log.report)
        let pending = PendingCallbacks<Int>()
        let call = Task { try await bridge.call("logout") { pending.keep($0) } }
        while pending.count == 0 { await Task.yield() }
        pending.releaseAll()
        await #expect(throws: CallbackBridgeError.callbackDropped(operation: "logout")) { try await call.value }
        #expect(log.all == [CallbackViolation(operation: "logout", kind: .callbackDropped)])
    }

    @Test func errorTextsNameTheOperation() {
        #expect(CallbackBridgeError.timedOut(operation: "login", after: .seconds(3)).description.hasPrefix("login did not answer within 3.0 seconds"))
        #expect(CallbackViolation(operation: "login", kind: .duplicateCallback).description == "login: duplicateCallback")
    }
}
