#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CTandemSystem
#endif

/// What a registered descriptor is ready for, as reported by the selector.
struct IOEvents: OptionSet {
    let rawValue: UInt8
    static let readable = IOEvents(rawValue: 1)
    static let writable = IOEvents(rawValue: 2)
    /// An error is pending on the descriptor (read `SO_ERROR`).
    static let error = IOEvents(rawValue: 4)
    /// The descriptor hung up (both directions closed, or reset).
    static let hangup = IOEvents(rawValue: 8)
}

/// What a registered descriptor wants to hear about. Errors and hang-ups are always reported.
struct IOInterest: OptionSet, Equatable {
    let rawValue: UInt8
    static let read = IOInterest(rawValue: 1)
    static let write = IOInterest(rawValue: 2)
}

/// The readiness mechanism under an event loop: epoll on Linux, poll(2) elsewhere. Level-triggered: a
/// descriptor that stays ready is reported again on the next wait. All methods except `wakeup` are called on the
/// loop thread only.
protocol IOSelector: AnyObject {
    /// Starts watching `fd`; events for it carry `token`.
    func register(fd: Int32, token: UInt64, interest: IOInterest) throws
    /// Changes what `fd` is watched for.
    func reregister(fd: Int32, token: UInt64, interest: IOInterest) throws
    /// Stops watching `fd` (call before closing it).
    func deregister(fd: Int32)
    /// Blocks until a watched descriptor is ready, `wakeup` is called, or `timeoutNanoseconds` passes (nil waits
    /// without limit), then reports every ready descriptor to `body`.
    func wait(timeoutNanoseconds: UInt64?, _ body: (UInt64, IOEvents) -> Void) throws
    /// Interrupts a `wait` in progress (or makes the next one return at once). Safe from any thread.
    func wakeup()
    /// Releases the selector's own descriptors.
    func close()
}

extension IOSelector {
    /// A timeout in whole milliseconds for `epoll_wait`/`poll`, rounded up so timers never fire early.
    static func milliseconds(_ nanoseconds: UInt64?) -> Int32 {
        guard let nanoseconds else { return -1 }
        let millis = (nanoseconds &+ 999_999) / 1_000_000
        return millis > UInt64(Int32.max) ? Int32.max : Int32(millis)
    }
}

/// Creates the best selector for this platform.
func makeSelector() throws -> any IOSelector {
    #if os(Linux)
    return try EpollSelector()
    #else
    return try PollSelector()
    #endif
}

#if os(Linux)
/// epoll(7) selector with an eventfd for wake-ups, calling the C library through `CTandemSystem`.
final class EpollSelector: IOSelector {
    private static let readBits = EPOLLIN.rawValue
    private static let writeBits = EPOLLOUT.rawValue
    private static let errorBits = EPOLLERR.rawValue
    private static let hangupBits = EPOLLHUP.rawValue

    private let epollFD: Int32
    private let wakeFD: Int32
    private let capacity = 512
    /// The result array of `epoll_wait`: real `struct epoll_event`s, laid out by the C importer.
    private let events: UnsafeMutablePointer<epoll_event>
    /// The token reserved for the wake-up eventfd; descriptor tokens never reach it.
    private static let wakeToken = UInt64.max

    init() throws {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw IOError.lastError("epoll_create1") }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = IOError.lastError("eventfd")
            _ = systemClose(epollFD)
            throw error
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        events = .allocate(capacity: capacity)
        do {
            try apply(EPOLL_CTL_ADD, fd: wakeFD, bits: Self.readBits, token: Self.wakeToken, what: "epoll_ctl(ADD eventfd)")
        } catch {
            _ = systemClose(epollFD)
            _ = systemClose(wakeFD)
            events.deallocate()
            throw error
        }
    }

    private func apply(_ operation: Int32, fd: Int32, bits: UInt32, token: UInt64, what: @autoclosure () -> String) throws {
        var event = epoll_event()
        event.events = bits
        event.data.u64 = token
        guard epoll_ctl(epollFD, operation, fd, &event) == 0 else { throw IOError.lastError(what()) }
    }

    private func mask(_ interest: IOInterest) -> UInt32 {
        var bits: UInt32 = 0
        if interest.contains(.read) { bits |= Self.readBits }
        if interest.contains(.write) { bits |= Self.writeBits }
        return bits
    }

    func register(fd: Int32, token: UInt64, interest: IOInterest) throws {
        try apply(EPOLL_CTL_ADD, fd: fd, bits: mask(interest), token: token, what: "epoll_ctl(ADD)")
    }

    func reregister(fd: Int32, token: UInt64, interest: IOInterest) throws {
        try apply(EPOLL_CTL_MOD, fd: fd, bits: mask(interest), token: token, what: "epoll_ctl(MOD)")
    }

    func deregister(fd: Int32) {
        // Kernels before 2.6.9 required a non-null event even for DEL; passing one costs nothing.
        var unused = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &unused)
    }

    func wait(timeoutNanoseconds: UInt64?, _ body: (UInt64, IOEvents) -> Void) throws {
        let count = epoll_wait(epollFD, events, Int32(capacity), Self.milliseconds(timeoutNanoseconds))
        if count < 0 {
            if currentErrno() == EINTR { return }
            throw IOError.lastError("epoll_wait")
        }
        for index in 0..<Int(count) {
            let bits = events[index].events
            let token = events[index].data.u64
            if token == Self.wakeToken {
                var counter: UInt64 = 0
                _ = read(wakeFD, &counter, MemoryLayout<UInt64>.size)
                continue
            }
            var ready: IOEvents = []
            if bits & Self.readBits != 0 { ready.insert(.readable) }
            if bits & Self.writeBits != 0 { ready.insert(.writable) }
            if bits & Self.errorBits != 0 { ready.insert(.error) }
            if bits & Self.hangupBits != 0 { ready.insert(.hangup) }
            body(token, ready)
        }
    }

    func wakeup() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, MemoryLayout<UInt64>.size)
    }

    func close() {
        _ = systemClose(wakeFD)
        _ = systemClose(epollFD)
        events.deallocate()
    }
}
#else
/// poll(2) selector for platforms without epoll; a self-pipe carries wake-ups. Simple rather than fast: it
/// rebuilds the descriptor array on every wait.
final class PollSelector: IOSelector {
    private var watched: [Int32: (token: UInt64, interest: IOInterest)] = [:]
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw IOError.lastError("pipe") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        try Socket.configureInherited(wakeRead)
        try Socket.configureInherited(wakeWrite)
    }

    func register(fd: Int32, token: UInt64, interest: IOInterest) throws {
        watched[fd] = (token, interest)
    }

    func reregister(fd: Int32, token: UInt64, interest: IOInterest) throws {
        watched[fd] = (token, interest)
    }

    func deregister(fd: Int32) {
        watched[fd] = nil
    }

    func wait(timeoutNanoseconds: UInt64?, _ body: (UInt64, IOEvents) -> Void) throws {
        var entries = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        var tokens: [UInt64] = [0]
        for (fd, watch) in watched {
            var bits: Int16 = 0
            if watch.interest.contains(.read) { bits |= Int16(POLLIN) }
            if watch.interest.contains(.write) { bits |= Int16(POLLOUT) }
            entries.append(pollfd(fd: fd, events: bits, revents: 0))
            tokens.append(watch.token)
        }
        let count = poll(&entries, nfds_t(entries.count), Self.milliseconds(timeoutNanoseconds))
        if count < 0 {
            if currentErrno() == EINTR { return }
            throw IOError.lastError("poll")
        }
        if entries[0].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            while read(wakeRead, &drain, drain.count) > 0 {}
        }
        for index in 1..<entries.count where entries[index].revents != 0 {
            let revents = entries[index].revents
            var ready: IOEvents = []
            if revents & Int16(POLLIN) != 0 { ready.insert(.readable) }
            if revents & Int16(POLLOUT) != 0 { ready.insert(.writable) }
            if revents & Int16(POLLERR) != 0 { ready.insert(.error) }
            if revents & Int16(POLLHUP) != 0 { ready.insert(.hangup) }
            body(tokens[index], ready)
        }
    }

    func wakeup() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }

    func close() {
        _ = systemClose(wakeRead)
        _ = systemClose(wakeWrite)
    }
}
#endif
