import TandemSynchronization
import TandemWire

/// One TCP connection to Redis with pipelining: any number of commands may be in flight, from any
/// number of tasks, and each gets its own reply because Redis answers in the order it received them.
///
/// Commands are encoded and queued under one lock in call order and written by the connection's
/// event loop, several per write, so concurrent callers never interleave bytes. A blocking command
/// (`XREAD BLOCK`, `BLPOP`) holds back every reply queued after it: give it a connection of its own.
/// When the connection closes, every command still waiting fails with `RedisError.connectionLost`
/// and later ones with `RedisError.connectionClosed`; a connection never reopens (`RedisClient` does that).
package final class RedisConnection: Sendable {
    /// Where this connection goes.
    package let endpoint: RedisEndpoint
    /// The `run_id` of the server process at the other end, when the connection was opened to read it.
    package let serverRunID: String?
    private let core: RedisConnectionCore

    private init(endpoint: RedisEndpoint, core: RedisConnectionCore, serverRunID: String?) {
        self.endpoint = endpoint
        self.core = core
        self.serverRunID = serverRunID
    }

    /// Opens a connection to `endpoint` on `loop`; with `readsServerRunID`, first asks the server for
    /// its `run_id` (`serverRunID`).
    /// - Throws: `RedisError.unavailable` when the TCP connection cannot be made within `timeout`; the
    ///   `INFO` command's error when it fails.
    package static func connect(
        to endpoint: RedisEndpoint,
        on loop: EventLoop,
        limits: RESPLimits = RESPLimits(),
        timeout: Duration = .seconds(10),
        readsServerRunID: Bool = false
    ) async throws(RedisError) -> RedisConnection {
        let core = RedisConnectionCore(endpoint: endpoint, loop: loop)
        do {
            _ = try await TCPConnection.connect(host: endpoint.host, port: endpoint.port, timeout: timeout, on: loop) { tcp in
                core.attach(tcp)
                return RedisConnectionHandler(core: core, parser: RESPParser(limits: limits))
            }
        } catch {
            throw .unavailable(endpoint: endpoint, attempts: 1, lastError: "\(error)")
        }
        guard readsServerRunID else { return RedisConnection(endpoint: endpoint, core: core, serverRunID: nil) }
        let info = await core.submit([["INFO", "server"]])[0]
        do {
            let text = try info.get().string ?? ""
            let line = text.split(whereSeparator: \.isNewline).first { $0.hasPrefix("run_id:") }
            return RedisConnection(endpoint: endpoint, core: core, serverRunID: line.map { String($0.dropFirst("run_id:".count)) })
        } catch {
            core.close()
            throw error
        }
    }

    /// False once the connection has closed, for whatever reason.
    package var isOpen: Bool { core.isOpen }

    /// Sends one command and returns its reply.
    /// - Throws: `RedisError.server` for an error reply; `.connectionLost` / `.connectionClosed` /
    ///   `.protocolViolation` when the connection fails.
    package func send(_ command: [RedisArgument]) async throws(RedisError) -> RESPValue {
        let replies = await core.submit([command])
        return try replies[0].get()
    }

    /// Sends `commands` back to back and returns their replies in the same order. An error reply fails
    /// only its own entry; a connection failure fails every entry that had no reply yet.
    package func pipeline(_ commands: [[RedisArgument]]) async -> [Result<RESPValue, RedisError>] {
        guard !commands.isEmpty else { return [] }
        return await core.submit(commands)
    }

    /// Closes the connection gracefully; commands without a reply yet fail with `.connectionLost`.
    package func close() {
        core.close()
    }
}

/// The state shared by the callers and the loop thread: the outgoing bytes, and the replies awaited
/// in the order their commands were queued.
final class RedisConnectionCore: Sendable {
    private struct State {
        var tcp: TCPConnection?
        var outgoing: [UInt8] = []
        var flushScheduled = false
        var pending: [PendingReply] = []
        var pendingHead = 0
        var closed: RedisError?
        /// Set before aborting on bad bytes, so waiters learn why.
        var failure: RedisError?
    }

    private struct PendingReply {
        var collector: ReplyCollector
        var index: Int
    }

    let endpoint: RedisEndpoint
    let loop: EventLoop
    private let state = Locked(State())

    init(endpoint: RedisEndpoint, loop: EventLoop) {
        self.endpoint = endpoint
        self.loop = loop
    }

    var isOpen: Bool { state.withLock { $0.closed == nil && $0.tcp != nil } }

    func attach(_ tcp: TCPConnection) {
        state.withLock { $0.tcp = tcp }
    }

    func submit(_ commands: [[RedisArgument]]) async -> [Result<RESPValue, RedisError>] {
        await withCheckedContinuation { continuation in
            let collector = ReplyCollector(count: commands.count, continuation: continuation)
            let (accepted, scheduleFlush) = state.withLock { state -> (Bool, Bool) in
                guard state.closed == nil, state.tcp != nil else { return (false, false) }
                for (index, command) in commands.enumerated() {
                    RESPEncoder.command(command, into: &state.outgoing)
                    state.pending.append(PendingReply(collector: collector, index: index))
                }
                defer { state.flushScheduled = true }
                return (true, !state.flushScheduled)
            }
            guard accepted else {
                collector.failRemaining(with: .connectionClosed(endpoint: endpoint))
                return
            }
            if scheduleFlush, !loop.execute({ self.flush() }) {
                failAll(with: .connectionLost(endpoint: endpoint, reason: "the event loop was shut down"))
            }
        }
    }

    /// Writes everything queued so far in one write (on the loop thread).
    private func flush() {
        let (tcp, bytes) = state.withLock { state -> (TCPConnection?, [UInt8]) in
            state.flushScheduled = false
            defer { state.outgoing = [] }
            return (state.tcp, state.outgoing)
        }
        tcp?.write(bytes)
    }

    /// Hands a reply to the oldest waiting command (on the loop thread).
    func deliver(_ reply: RESPValue) {
        // An out-of-band RESP3 push answers no command: dropped, it must not take a command's place.
        if case .push = reply { return }
        let waiting = state.withLock { state -> PendingReply? in
            guard state.pendingHead < state.pending.count else { return nil }
            let next = state.pending[state.pendingHead]
            state.pendingHead += 1
            if state.pendingHead == state.pending.count {
                state.pending.removeAll(keepingCapacity: true)
                state.pendingHead = 0
            } else if state.pendingHead > 1024, state.pendingHead * 2 > state.pending.count {
                state.pending.removeFirst(state.pendingHead)
                state.pendingHead = 0
            }
            return next
        }
        guard let waiting else { return }
        if case .error(let text) = reply {
            waiting.collector.record(.failure(.fromReply(text)), at: waiting.index)
        } else {
            waiting.collector.record(.success(reply), at: waiting.index)
        }
    }

    /// Records why the connection is about to be aborted (bad bytes from the server).
    func fail(_ error: RedisError, tcp: TCPConnection) {
        state.withLock { $0.failure = error }
        tcp.abort()
    }

    /// The connection closed (on the loop thread): every waiting command fails.
    func didClose(error: IOError?) {
        let reason = error.map { "\($0)" } ?? "closed"
        let failure = state.withLock { $0.failure } ?? .connectionLost(endpoint: endpoint, reason: reason)
        failAll(with: failure)
    }

    private func failAll(with error: RedisError) {
        let waiting = state.withLock { state -> [PendingReply] in
            if state.closed == nil { state.closed = error }
            defer {
                state.pending = []
                state.pendingHead = 0
                state.outgoing = []
            }
            return Array(state.pending[state.pendingHead...])
        }
        for reply in waiting { reply.collector.record(.failure(error), at: reply.index) }
    }

    func close() {
        let tcp = state.withLock { $0.tcp }
        guard let tcp else { return }
        _ = loop.execute { tcp.close() }
    }
}

/// Gathers the replies of one `submit` and resumes its caller once all have arrived.
final class ReplyCollector: Sendable {
    private struct State {
        var results: [Result<RESPValue, RedisError>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<RESPValue, RedisError>], Never>?
    }

    private let state: Locked<State>

    init(count: Int, continuation: CheckedContinuation<[Result<RESPValue, RedisError>], Never>) {
        state = Locked(State(results: Array(repeating: nil, count: count), remaining: count, continuation: continuation))
    }

    func record(_ result: Result<RESPValue, RedisError>, at index: Int) {
        let finished = state.withLock { state -> (CheckedContinuation<[Result<RESPValue, RedisError>], Never>, [Result<RESPValue, RedisError>])? in
            guard state.results[index] == nil else { return nil }
            state.results[index] = result
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.results.map { $0! })
        }
        if let (continuation, results) = finished { continuation.resume(returning: results) }
    }

    func failRemaining(with error: RedisError) {
        let count = state.withLock { $0.results.count }
        for index in 0..<count { record(.failure(error), at: index) }
    }
}

/// Feeds a connection's bytes to the parser and the parsed replies to the core; confined to the loop thread.
final class RedisConnectionHandler: TCPConnectionHandler {
    private let core: RedisConnectionCore
    private var parser: RESPParser

    init(core: RedisConnectionCore, parser: RESPParser) {
        self.core = core
        self.parser = parser
    }

    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        do {
            while let reply = try parser.next() {
                core.deliver(reply)
            }
        } catch {
            core.fail(.protocolViolation(error), tcp: connection)
        }
    }

    func connectionDidClose(_ connection: TCPConnection, error: IOError?) {
        core.didClose(error: error)
    }
}
