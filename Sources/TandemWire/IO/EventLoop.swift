#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TandemSynchronization

/// Something registered with an event loop's selector: a connection or a listener. Called on the loop thread.
protocol IOSelectable: AnyObject {
    /// The descriptor became ready.
    func handleIO(_ events: IOEvents)
    /// The loop is shutting down: release the descriptor and report closure.
    func loopDidShutDown()
}

/// One thread that waits on a selector (epoll on Linux) and runs everything that belongs to it: socket events,
/// timers, work submitted from other threads, and batched write flushes.
///
/// Threading: `execute`, `schedule`, `submit` and `inEventLoop` are safe from any thread. Everything else that
/// is loop-bound (connections, listeners) must be touched on this loop's thread only; hop with `execute`.
/// Ordering: work submitted with `execute` from one thread runs in submission order.
/// One iteration: wait → socket events → due timers → submitted work → write flushes.
package final class EventLoop: @unchecked Sendable {
    /// The loop's position in its group (0-based); also in the thread's name, `tandem-loop-<index>`.
    package let index: Int
    /// How often armed idle timers are checked; an idle timeout fires up to this much late.
    package let idleSweepInterval: Duration

    let selector: any IOSelector

    /// One entry of the inbox. A shared frame is queued as plain references rather than as a closure capturing
    /// them, which saves an allocation per recipient when one message fans out from another thread; both kinds
    /// share one FIFO so submission order holds across them (a frame sent before a close still goes first).
    private enum SubmittedWork {
        case task(@Sendable () -> Void)
        case frame(SharedBytes, to: any SharedFrameTarget)

        func run() {
            switch self {
            case .task(let work): work()
            case .frame(let bytes, let target): target.writeSharedFrame(bytes)
            }
        }
    }

    private struct Inbox {
        var tasks: [SubmittedWork] = []
        var wakeupRequested = false
        var shutdownRequested = false
        var closed = false
    }

    private let inbox = Locked(Inbox())
    /// How many wake-ups `execute` has done (tests check that batches coalesce them).
    let wakeups = AtomicValue<Int>(0)
    private let threadID = AtomicValue<UInt>(0)

    // Loop-thread state: touched on the loop thread only.
    /// The monotonic time read once per iteration, right after the wait returns.
    private(set) var now: UInt64 = MonotonicTime.now()
    private var timers = TimerHeap<ScheduledTask>()
    private var timerCompactionThreshold = 1024
    private var runningTasks: [SubmittedWork] = []
    private var registry: ContiguousArray<RegistrySlot> = []
    private var nextGeneration: UInt32 = 1
    var flushList: [TCPConnection] = []
    private var flushing: [TCPConnection] = []
    var idle = IdleDeadlines<TCPConnection>()
    private var idleSweep: ScheduledTask?
    private var shutDown = false
    /// Depth of `withQueuedSends` calls running on the loop thread.
    private var queuedSendDepth = 0

    /// The per-loop read buffer every connection of this loop reads into (connections own none).
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Scratch space for gathering a write queue into `sendmsg`.
    let ioVectors: UnsafeMutablePointer<iovec>
    static let ioVectorCapacity = 64

    private struct RegistrySlot {
        var owner: (any IOSelectable)?
        var generation: UInt32 = 0
    }

    /// Whether the loop keeps polling for events longer while it is busy, before it sleeps (set by its group).
    package let pollsLongerWhenBusy: Bool
    /// Loop-thread state: how long the loop polls after its current work.
    private(set) var pollWindow: PollWindow

    init(index: Int, idleSweepInterval: Duration, readBufferSize: Int, pollsLongerWhenBusy: Bool = false) throws {
        self.index = index
        self.idleSweepInterval = idleSweepInterval
        self.pollsLongerWhenBusy = pollsLongerWhenBusy
        pollWindow = PollWindow(adapts: pollsLongerWhenBusy, now: MonotonicTime.now())
        selector = try makeSelector()
        readBuffer = .allocate(byteCount: readBufferSize, alignment: 16)
        ioVectors = .allocate(capacity: Self.ioVectorCapacity)
    }

    deinit {
        selector.close()
        readBuffer.deallocate()
        ioVectors.deallocate()
    }

    // MARK: - Any thread

    /// True when called on this loop's thread.
    package var inEventLoop: Bool {
        threadID.load(ordering: .acquiring) == Self.currentThreadID()
    }

    /// The event loop whose thread is calling, or nil on any other thread. Lets work that may start on a
    /// loop (a storage commit, say) finish in the loop's current iteration instead of crossing to another
    /// thread and back.
    package static var current: EventLoop? { currentSlot.value }

    /// Set while `run()` runs on the loop's thread.
    private static let currentSlot = ThreadSlot<EventLoop>()

    /// Runs `body` on this loop's thread so that frames it sends to this loop's connections are queued
    /// behind work other threads already handed to the loop, as if sent from another thread, instead of
    /// being written at once. Use it where the same stream of frames may come from several threads: a
    /// frame written at once would overtake an earlier one still waiting in the loop's queue.
    /// Must be called on the loop thread.
    package func withQueuedSends<R>(_ body: () throws -> R) rethrows -> R {
        precondition(inEventLoop, "withQueuedSends must be called on the loop's own thread")
        queuedSendDepth += 1
        defer { queuedSendDepth -= 1 }
        return try body()
    }

    /// Whether a frame sent now from the loop thread may be written at once (see `withQueuedSends`).
    var sendsDirectly: Bool { queuedSendDepth == 0 }

    /// True once the loop thread has published its id.
    var hasStarted: Bool {
        threadID.load(ordering: .acquiring) != 0
    }

    /// Queues `work` to run on the loop thread and wakes the loop. Safe from any thread. Inside
    /// `WakeupCoalescing.batch` the wake-up is done when the batch ends, once per loop.
    /// - Returns: false (and drops `work`) when the loop has already shut down.
    @discardableResult
    package func execute(_ work: @escaping @Sendable () -> Void) -> Bool {
        submit(.task(work))
    }

    /// Queues `frame` to be written to `target` on the loop thread, in order with `execute`d work. Safe from any
    /// thread.
    /// - Returns: false (and drops the frame) when the loop has already shut down.
    @discardableResult
    func enqueue(_ frame: SharedBytes, to target: any SharedFrameTarget) -> Bool {
        submit(.frame(frame, to: target))
    }

    private func submit(_ work: SubmittedWork) -> Bool {
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.closed else { return (false, false) }
            inbox.tasks.append(work)
            if inbox.wakeupRequested { return (true, false) }
            inbox.wakeupRequested = true
            return (true, true)
        }
        // The loop looks at its inbox before every wait, so work queued from its own thread needs no wake-up.
        if wake, !inEventLoop {
            if let batch = WakeupCoalescing.current {
                batch.loops.append(self)
            } else {
                self.wake()
            }
        }
        return accepted
    }

    /// Runs `work` on the loop after `delay` (measured on the monotonic clock). Timers due at the same instant
    /// run in the order they were scheduled. Safe from any thread; the returned handle cancels.
    /// Work still pending when the loop shuts down never runs.
    @discardableResult
    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledTask {
        let task = ScheduledTask(work)
        let deadline = MonotonicTime.deadline(after: delay, from: MonotonicTime.now())
        if inEventLoop {
            insertTimer(deadline: deadline, task)
        } else {
            execute { self.insertTimer(deadline: deadline, task) }
        }
        return task
    }

    /// Runs `work` on the loop and returns its result to the awaiting task.
    /// - Throws: what `work` throws, or `IOError.eventLoopShutdown` if the loop no longer runs work.
    package func submit<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = execute { continuation.resume(with: Swift.Result { try work() }) }
            if !accepted { continuation.resume(throwing: IOError.eventLoopShutdown) }
        }
    }

    /// Interrupts the loop's wait so it looks at its inbox.
    func wake() {
        wakeups.add(1, ordering: .relaxed)
        selector.wakeup()
    }

    /// Asks the loop to stop: it closes every connection and listener it owns (handlers see
    /// `connectionDidClose(error: .eventLoopShutdown)`), then its thread ends. Work queued after this is dropped.
    func requestShutdown() {
        inbox.withLock { $0.shutdownRequested = true }
        selector.wakeup()
    }

    // MARK: - Thread body

    /// Runs iterations until shutdown. Called once, on the loop's own thread.
    func run() {
        threadID.store(Self.currentThreadID(), ordering: .releasing)
        Self.currentSlot.set(self)
        defer { Self.currentSlot.set(nil) }
        // Until this instant the loop polls instead of sleeping (see `PollWindow`).
        var pollUntil: UInt64 = 0
        while true {
            let (hasWork, stopping) = inbox.withLock { ($0.wakeupRequested || !$0.tasks.isEmpty, $0.shutdownRequested) }
            if stopping { break }
            var timeout: UInt64?
            if hasWork {
                timeout = 0
            } else if MonotonicTime.now() < pollUntil {
                timeout = 0
                // Between polls any other thread that wants this core goes first: polling uses only CPU time
                // nobody else asks for, and a machine shared with other work loses nothing to it.
                sched_yield()
            } else if let deadline = timers.nextDeadline {
                let current = MonotonicTime.now()
                timeout = deadline > current ? deadline - current : 0
            }
            var refreshed = false
            do {
                try selector.wait(timeoutNanoseconds: timeout) { token, events in
                    // Handlers arm deadlines from `now`: read the clock once the wait is over, before the first.
                    if !refreshed {
                        now = MonotonicTime.now()
                        refreshed = true
                    }
                    dispatch(token: token, events: events)
                }
            } catch {
                // A failing wait (EBADF, ENOMEM) cannot be retried meaningfully: stop the loop cleanly.
                break
            }
            let handledIO = refreshed
            if !refreshed { now = MonotonicTime.now() }
            runDueTimers()
            let ranWork = runSubmittedWork()
            flushPending()
            if handledIO || ranWork {
                let end = MonotonicTime.now()
                pollWindow.worked(from: now, to: end)
                pollUntil = end &+ pollWindow.current
            }
        }
        tearDown()
    }

    private func dispatch(token: UInt64, events: IOEvents) {
        let fd = Int(truncatingIfNeeded: token & 0xFFFF_FFFF)
        let generation = UInt32(truncatingIfNeeded: token >> 32)
        guard fd < registry.count, registry[fd].generation == generation, let owner = registry[fd].owner else {
            return  // a stale event for a descriptor closed earlier in this batch
        }
        owner.handleIO(events)
    }

    private func runDueTimers() {
        // Collect first so a timer scheduled by a timer for "now" waits for the next iteration.
        var due: [ScheduledTask] = []
        while let task = timers.popExpired(now: now) { due.append(task) }
        for task in due where !task.isCancelled { task.run() }
    }

    /// Runs what other threads submitted; returns whether there was any.
    @discardableResult
    private func runSubmittedWork() -> Bool {
        inbox.withLock { inbox in
            swap(&inbox.tasks, &runningTasks)
            inbox.wakeupRequested = false
        }
        guard !runningTasks.isEmpty else { return false }
        for task in runningTasks { task.run() }
        runningTasks.removeAll(keepingCapacity: runningTasks.count <= 1024)
        return true
    }

    /// Flushes every connection that queued writes (or must report closure) during this iteration. Handlers
    /// called here may queue more; those are flushed in the same pass.
    func flushPending() {
        while !flushList.isEmpty {
            swap(&flushList, &flushing)
            for connection in flushing { connection.flushFromLoop() }
            flushing.removeAll(keepingCapacity: flushing.count <= 4096)
        }
    }

    private func tearDown() {
        shutDown = true
        // Run what was already submitted (it may be closing things gracefully), then close the rest.
        runSubmittedWork()
        for slot in registry {
            slot.owner?.loopDidShutDown()
        }
        flushPending()
        let leftovers = inbox.withLock { inbox -> [SubmittedWork] in
            inbox.closed = true
            defer { inbox.tasks = [] }
            return inbox.tasks
        }
        // Work that raced with shutdown still runs once, so continuations waiting on it are resumed.
        for task in leftovers { task.run() }
        flushPending()
        timers = TimerHeap()
        idleSweep = nil
        registry = []
    }

    // MARK: - Loop thread: timers

    private func insertTimer(deadline: UInt64, _ task: ScheduledTask) {
        guard !shutDown else { return }
        timers.insert(deadline: deadline, task)
        // Cancelled timers stay in the heap until due; compact when it has doubled since the last compaction.
        if timers.count >= timerCompactionThreshold {
            timers.removeAll { $0.isCancelled }
            timerCompactionThreshold = max(1024, timers.count * 2)
        }
    }

    /// Timers in the heap, cancelled ones included until they are due or compacted away.
    var pendingTimerCount: Int { timers.count }

    // MARK: - Loop thread: registration

    /// Starts watching `fd` for `owner`; returns the token events will carry.
    /// - Throws: `IOError.eventLoopShutdown` once the loop is tearing down (work that raced with shutdown).
    func register(_ owner: any IOSelectable, fd: Int32, interest: IOInterest) throws -> UInt64 {
        guard !shutDown else { throw IOError.eventLoopShutdown }
        let slot = Int(fd)
        if slot >= registry.count {
            registry.append(contentsOf: repeatElement(RegistrySlot(), count: max(slot + 1 - registry.count, registry.count)))
        }
        let generation = nextGeneration
        nextGeneration = nextGeneration == UInt32.max ? 1 : nextGeneration + 1
        let token = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        try selector.register(fd: fd, token: token, interest: interest)
        registry[slot] = RegistrySlot(owner: owner, generation: generation)
        return token
    }

    /// Changes the interest of a registered descriptor.
    func reregister(fd: Int32, token: UInt64, interest: IOInterest) throws {
        try selector.reregister(fd: fd, token: token, interest: interest)
    }

    /// Stops watching `fd` and drops the loop's reference to its owner. Call before closing the descriptor.
    func deregister(fd: Int32) {
        selector.deregister(fd: fd)
        let slot = Int(fd)
        if slot < registry.count { registry[slot] = RegistrySlot(owner: nil, generation: 0) }
    }

    // MARK: - Loop thread: idle deadlines

    /// Arms (or moves) the idle deadline of `connection`, starting the sweep tick if it is not running.
    func armIdle(_ connection: TCPConnection, deadline: UInt64) {
        idle.arm(connection, deadline: deadline)
        if idleSweep == nil, !shutDown { scheduleIdleSweep() }
    }

    private func scheduleIdleSweep() {
        idleSweep = schedule(after: idleSweepInterval) { [unowned self] in self.sweepIdle() }
    }

    private func sweepIdle() {
        idleSweep = nil
        for connection in idle.removeExpired(now: now) {
            connection.idleTimerFired()
        }
        if !idle.isEmpty, !shutDown { scheduleIdleSweep() }
    }

    // MARK: - Threads

    static func currentThreadID() -> UInt {
        #if os(Linux)
        return UInt(pthread_self())
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }
}
