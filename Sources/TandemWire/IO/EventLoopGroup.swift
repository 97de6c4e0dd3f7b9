#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CTandemSystem
#endif
import TandemSynchronization

/// A fixed set of event loops, one thread each, handed out round-robin by `next()`.
///
/// Create one per process (it is the server's or client's I/O engine) and call `shutdown()` before exit:
/// it closes every connection and listener on every loop and joins the threads.
public final class EventLoopGroup: Sendable {
    /// The loops, in index order.
    package let loops: [EventLoop]
    private let cursor = AtomicValue<Int>(0)
    private let threads: Locked<[LoopThread]>

    /// The number of cores this process may use (at least 1): the online cores, limited by its CPU affinity and
    /// a container's CPU quota. The default thread count.
    public static var defaultThreadCount: Int {
        AvailableCores.count()
    }

    /// Starts `threads` loops and returns once every loop thread is running.
    /// - Parameters:
    ///   - threads: how many loops (threads); at least 1.
    ///   - idleSweepInterval: how often each loop checks armed idle timers (the precision of idle timeouts).
    ///   - readBufferSize: the size of each loop's shared read buffer, the most one read can hand to a handler.
    ///   - pollsLongerWhenBusy: whether a loop that is busy keeps polling for events longer before it sleeps
    ///     (`PollWindow`): lower latency under load for up to the rest of its core. Meant for servers whose loops
    ///     leave at least one core free; a client or a load generator sharing the machine should not.
    /// - Throws: `IOError` when the selector or a thread cannot be created.
    public init(
        threads: Int = EventLoopGroup.defaultThreadCount,
        idleSweepInterval: Duration = .seconds(1),
        readBufferSize: Int = 64 * 1024,
        pollsLongerWhenBusy: Bool = false
    ) throws {
        precondition(threads >= 1, "an event loop group needs at least one thread")
        var loops: [EventLoop] = []
        var started: [LoopThread] = []
        do {
            for index in 0..<threads {
                let loop = try EventLoop(
                    index: index, idleSweepInterval: idleSweepInterval, readBufferSize: readBufferSize,
                    pollsLongerWhenBusy: pollsLongerWhenBusy)
                loops.append(loop)
                started.append(try LoopThread.start(name: "tandem-loop-\(index)") { loop.run() })
            }
        } catch {
            for loop in loops { loop.requestShutdown() }
            for thread in started { thread.join() }
            throw error
        }
        // Wait until every loop has published its thread id, so `inEventLoop` is right from the start.
        for loop in loops {
            while !loop.hasStarted { sched_yield() }
        }
        self.loops = loops
        self.threads = Locked(started)
    }

    /// The next loop in round-robin order. Safe from any thread.
    package func next() -> EventLoop {
        let position = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(UInt(bitPattern: position) % UInt(loops.count))]
    }

    /// Stops every loop (closing its connections and listeners, delivering `connectionDidClose`) and waits for
    /// their threads to end. Idempotent. Must not be called on one of the group's own loop threads.
    public func shutdown() {
        precondition(!loops.contains { $0.inEventLoop }, "EventLoopGroup.shutdown() called on one of its own loops")
        for loop in loops { loop.requestShutdown() }
        let joining = threads.withLock { threads -> [LoopThread] in
            defer { threads = [] }
            return threads
        }
        for thread in joining { thread.join() }
    }

    /// Stops every loop like `shutdown()` but returns at once: the threads end on their own. For an owner
    /// that may be released on any thread, one of the group's loops included, where waiting would deadlock.
    public func shutdownWithoutWaiting() {
        for loop in loops { loop.requestShutdown() }
        let detaching = threads.withLock { threads -> [LoopThread] in
            defer { threads = [] }
            return threads
        }
        for thread in detaching { thread.detach() }
    }
}

/// A joinable POSIX thread.
struct LoopThread: Sendable {
    #if os(Linux)
    private let handle: pthread_t
    #else
    private let handle: UInt
    #endif

    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    static func start(name: String, _ body: @escaping () -> Void) throws -> LoopThread {
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        #if os(Linux)
        var handle = pthread_t()
        let status = pthread_create(&handle, nil, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            nameCurrentThread(start.name)
            start.body()
            return nil
        }, start)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw IOError.system(operation: "pthread_create", errno: status)
        }
        return LoopThread(handle: handle)
        #else
        var handle: pthread_t?
        let status = pthread_create(&handle, nil, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw).takeRetainedValue()
            _ = pthread_setname_np(String(start.name.prefix(15)))
            start.body()
            return nil
        }, start)
        guard status == 0, let handle else {
            Unmanaged<Start>.fromOpaque(start).release()
            throw IOError.system(operation: "pthread_create", errno: status)
        }
        return LoopThread(handle: UInt(bitPattern: handle))
        #endif
    }

    func detach() {
        #if os(Linux)
        _ = pthread_detach(handle)
        #else
        if let pointer = pthread_t(bitPattern: handle) { _ = pthread_detach(pointer) }
        #endif
    }

    func join() {
        #if os(Linux)
        _ = pthread_join(handle, nil)
        #else
        if let pointer = pthread_t(bitPattern: handle) { _ = pthread_join(pointer, nil) }
        #endif
    }
}

#if os(Linux)
/// Names the calling thread (visible in `top -H` and debuggers); the name is cut to the kernel's 15 bytes.
/// Naming is cosmetic, so a failure is ignored.
private func nameCurrentThread(_ name: String) {
    _ = tandem_set_thread_name(name)
}
#endif
