import Foundation
import Dispatch
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct EventLoopTests {
    @Test func executeFromManyThreadsRunsEverythingOnTheLoopInPerThreadOrder() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let seen = Mutex<[Int: [Int]]>([:])
        let offLoop = Atomic<Int>(0)
        let threads = 8, perThread = 500
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for value in 0..<perThread {
                loop.execute {
                    if !loop.inEventLoop { offLoop.add(1, ordering: .relaxed) }
                    seen.withLock { $0[thread, default: []].append(value) }
                }
            }
        }
        try await eventually("all work ran") { seen.withLock { $0.values.reduce(0) { $0 + $1.count } } == threads * perThread }
        #expect(offLoop.load(ordering: .relaxed) == 0)
        for thread in 0..<threads {
            #expect(seen.withLock { $0[thread] } == Array(0..<perThread))
        }
        #expect(!loop.inEventLoop)
    }

    @Test func aBusyLoopPollsLongerOnlyWhenItsGroupAllowsIt() async throws {
        for allowed in [true, false] {
            let group = try EventLoopGroup(threads: 1, pollsLongerWhenBusy: allowed)
            defer { group.shutdown() }
            let loop = group.next()
            #expect(loop.pollsLongerWhenBusy == allowed)
            #expect(try await loop.submit { loop.pollWindow.current } == PollWindow.short)
            // Work for three epochs at a time: the loop is busy by any measure, however late this task's next
            // submission comes on a loaded machine (an epoch with a long gap before the work may still count
            // as idle, so a few rounds are allowed where the window should grow).
            var window = PollWindow.short
            for _ in 0..<(allowed ? 5 : 1) {
                try await loop.submit {
                    let start = MonotonicTime.now()
                    while MonotonicTime.now() - start < 3 * PollWindow.epoch {}
                }
                window = try await loop.submit { loop.pollWindow.current }
                if window == PollWindow.long { break }
            }
            #expect(window == (allowed ? PollWindow.long : PollWindow.short))
        }
    }

    @Test func wakeUpsRequestedInsideABatchHappenOncePerLoopWhenItEnds() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let loops = group.loops
        for loop in loops { try await loop.submit {} }  // both idle, inboxes drained
        let before = loops.map { $0.wakeups.load(ordering: .relaxed) }
        let order = Mutex<[Int]>([])
        let woken = WakeupCoalescing.batch {
            for index in 0..<200 {
                loops[index % 2].execute { order.withLock { $0.append(index) } }
            }
            return zip(loops, before).map { $0.wakeups.load(ordering: .relaxed) - $1 }
        }
        #expect(woken == [0, 0], "no loop may be woken while the batch is handed out")
        try await eventually("every job ran after the batch", timeout: .seconds(30)) { order.withLock { $0.count } == 200 }
        let ran = order.withLock { $0 }
        #expect(ran.filter { $0 % 2 == 0 } == Array(stride(from: 0, to: 200, by: 2)))
        #expect(ran.filter { $0 % 2 == 1 } == Array(stride(from: 1, to: 200, by: 2)))
        // A nested batch joins the outer one: its wake-up waits for the outer batch to end.
        let nested = Mutex(false)
        let insideOuter = WakeupCoalescing.batch {
            let wokenBefore = loops[0].wakeups.load(ordering: .relaxed)
            WakeupCoalescing.batch { _ = loops[0].execute { nested.withLock { $0 = true } } }
            return loops[0].wakeups.load(ordering: .relaxed) - wokenBefore
        }
        #expect(insideOuter == 0)
        try await eventually("the nested batch's job ran", timeout: .seconds(30)) { nested.withLock { $0 } }
    }

    @Test func sharedFramesQueuedFromAnotherThreadRunOnTheLoopInOrderWithExecutedWork() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let target = RecordingFrameTarget(loop: loop)
        let frames = (0..<200).map { SharedBytes([UInt8(truncatingIfNeeded: $0)]) }
        // From a thread that is not the loop's: frames and closures interleaved must come out interleaved.
        let thread = Thread {
            for (index, frame) in frames.enumerated() {
                loop.enqueue(frame, to: target)
                if index.isMultiple(of: 10) { loop.execute { target.record("task \(index)") } }
            }
        }
        thread.start()
        var expected: [String] = []
        for index in 0..<200 {
            expected.append("frame \(UInt8(truncatingIfNeeded: index))")
            if index.isMultiple(of: 10) { expected.append("task \(index)") }
        }
        try await eventually("every frame and task ran") { target.entries.count == expected.count }
        #expect(target.entries == expected)
        #expect(target.offLoopCalls.load(ordering: .relaxed) == 0)
    }

    @Test func submitReturnsTheResultAndPropagatesErrors() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let onLoop = try await loop.submit { loop.inEventLoop }
        #expect(onLoop)
        await #expect(throws: IOError.closeTimeout) {
            try await loop.submit { () throws -> Int in throw IOError.closeTimeout }
        }
    }

    @Test func timersFireInDeadlineOrderAndNotEarly() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Mutex<[(String, ContinuousClock.Instant)]>([])
        let start = ContinuousClock.now
        for (name, delay) in [("c", 60), ("a", 20), ("b", 40), ("a2", 20)] {
            loop.schedule(after: .milliseconds(delay)) { fired.withLock { $0.append((name, .now)) } }
        }
        try await eventually("four timers fired") { fired.withLock { $0.count } == 4 }
        let record = fired.withLock { $0 }
        #expect(record.map(\.0) == ["a", "a2", "b", "c"])
        let delays = ["a": 20, "a2": 20, "b": 40, "c": 60]
        for (name, instant) in record {
            #expect(instant - start >= .milliseconds(delays[name]!), "\(name) fired early")
        }
    }

    @Test func cancelledTimersNeverRun() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Mutex<[Int]>([])
        let cancelled = loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append(1) } }
        loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append(2) } }
        cancelled.cancel()
        #expect(cancelled.isCancelled)
        try await eventually("second timer fired") { fired.withLock { $0 } == [2] }
        #expect(fired.withLock { $0 } == [2])
    }

    @Test func aTimerReleasesWhatItCapturedWhenCancelledOrRun() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        final class Token: Sendable {}
        weak var cancelledCapture: Token?
        weak var ranCapture: Token?
        let ran = Atomic<Bool>(false)
        let cancelled: ScheduledTask
        let fired: ScheduledTask
        do {
            let first = Token(), second = Token()
            cancelledCapture = first
            ranCapture = second
            cancelled = loop.schedule(after: .seconds(3600)) { withExtendedLifetime(first) {} }
            fired = loop.schedule(after: .zero) { withExtendedLifetime(second) { ran.store(true, ordering: .relaxed) } }
        }
        // The cancelled timer stays in the loop's heap until its deadline; what it captured must not.
        cancelled.cancel()
        #expect(cancelledCapture == nil)
        try await eventually("the due timer ran") { ran.load(ordering: .relaxed) }
        try await eventually("the timer that ran let go of its capture") { ranCapture == nil }
        #expect(!fired.isCancelled)
    }

    @Test func timersScheduledOnTheLoopFromATimerRunLater() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let order = Mutex<[String]>([])
        loop.execute {
            loop.schedule(after: .zero) {
                order.withLock { $0.append("outer") }
                loop.schedule(after: .zero) { order.withLock { $0.append("inner") } }
                loop.execute { order.withLock { $0.append("task") } }
            }
        }
        try await eventually("nested work ran") { order.withLock { $0.count } == 3 }
        #expect(order.withLock { $0.first } == "outer")
    }

    @Test func manyCancelledTimersAreCompactedAway() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Atomic<Int>(0)
        try await loop.submit {
            for _ in 0..<5_000 {
                loop.schedule(after: .seconds(3600)) { fired.add(1, ordering: .relaxed) }.cancel()
            }
            loop.schedule(after: .milliseconds(5)) { fired.add(100, ordering: .relaxed) }
        }
        try await eventually("live timer fired") { fired.load(ordering: .relaxed) == 100 }
        let pending = try await loop.submit { loop.pendingTimerCount }
        #expect(pending < 2_100)
    }
}

/// Records the shared frames and tasks a loop delivers, in delivery order.
private final class RecordingFrameTarget: SharedFrameTarget {
    let loop: EventLoop
    let offLoopCalls = Atomic<Int>(0)
    private let log = Mutex<[String]>([])

    init(loop: EventLoop) {
        self.loop = loop
    }

    var entries: [String] { log.withLock { $0 } }

    func record(_ entry: String) {
        if !loop.inEventLoop { offLoopCalls.add(1, ordering: .relaxed) }
        log.withLock { $0.append(entry) }
    }

    func writeSharedFrame(_ frame: SharedBytes) {
        record("frame \(frame.bytes[0])")
    }
}
