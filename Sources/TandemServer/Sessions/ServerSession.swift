import TandemSynchronization
import TandemProtocol

/// The protocol logic of one WebSocket connection on the server, free of sockets: takes each
/// complete text message, enforces the rate limit and the hello-first rule, verifies the token,
/// and drives the room. The connection layer feeds it messages and implements its `SessionSink`.
///
/// Thread-safety: state is behind a mutex; room callbacks arrive from the storage thread while
/// messages arrive on the connection's loop thread.
final class ServerSession: Sendable {
    /// What the session needs from the server.
    struct Context: Sendable {
        var registry: RoomRegistry
        var verifier: TokenVerifier
        /// Who may enter which room.
        var access: RoomAccess
        /// How fast each user may change each room, over the socket and the rooms API together.
        var writes: WriteAllowance
        var scheduler: any TimerScheduler
        /// Whether a socket connection's timers run on its own event loop (the server's default) rather
        /// than on `scheduler` (a scheduler the server was given runs every timer).
        var timersOnConnectionLoops = true
        var configuration: ServerConfiguration
        var metrics: ServerMetrics
        var logger: Logger
        /// Monotonic nanoseconds, for the rate limiter.
        var monotonicNow: @Sendable () -> Int64
        /// Unix milliseconds, the server's wall clock (the verifier's, finer): when a token's `exp` is reached.
        var wallClock: @Sendable () -> Int64
    }

    private enum Phase {
        case awaitingHello(any ScheduledTimer)
        /// Hello accepted; the room is loading. Messages wait here, in order.
        case joining(SessionIdentity, queued: [ClientMessage])
        case joined(Room, SessionIdentity)
        case closed
    }

    private struct State {
        var phase: Phase
        var bucket: TokenBucket
        /// The room the hello's token admits to.
        var room = ""
        /// The `exp` of the token in force (the hello's, or the last `refresh`'s), unix seconds.
        var expiry: Int64 = 0
        /// Closes the connection at `expiry`.
        var expiryTimer: (any ScheduledTimer)?
    }

    let id: ConnectionID
    private let sink: any SessionSink
    private let context: Context
    private let state: Locked<State>

    /// Starts a session: the hello timer runs from now.
    init(id: ConnectionID, sink: any SessionSink, context: Context) {
        self.id = id
        self.sink = sink
        self.context = context
        let configuration = context.configuration
        let bucket = TokenBucket(rate: Double(configuration.rateLimit), burst: Double(configuration.rateBurst), now: context.monotonicNow())
        state = Locked(State(phase: .closed, bucket: bucket))
        let timer = context.scheduler.schedule(after: configuration.helloTimeout) { [weak self] in
            self?.helloTimedOut()
        }
        state.withLock { $0.phase = .awaitingHello(timer) }
    }

    /// Handles one complete text message from the client.
    func receive(_ text: [UInt8]) {
        context.metrics.messagesIn.increment()
        context.metrics.bytesIn.increment(by: text.count)
        let now = context.monotonicNow()
        // Decide under the lock; act (room calls, sends) after it, so that room callbacks that
        // re-enter this session never deadlock.
        let action: Action = state.withLock { state in
            if case .closed = state.phase { return .none }
            guard state.bucket.take(now: now) else {
                if case .awaitingHello(let timer) = state.phase { timer.cancel() }
                let left = leaveRoom(&state)
                state.phase = .closed
                return .close(.rateLimited, .rateLimited, "more than \(context.configuration.rateLimit) messages per second (burst \(context.configuration.rateBurst)); slow down and reconnect", left)
            }
            let message: ClientMessage
            do throws(MessageDecodingError) {
                message = try ClientMessage.decode(text)
            } catch {
                if case .awaitingHello(let timer) = state.phase {
                    timer.cancel()
                    state.phase = .closed
                    return .close(.policyViolation, .helloRequired, "the first message must be a valid hello (\(error.description))", nil)
                }
                if case .invalidPatch(let seq, let patchError) = error {
                    return .reply(.reject(seq: seq, code: patchError.code, message: patchError.description))
                }
                return .reply(.error(code: error.errorCode, message: error.description))
            }
            switch state.phase {
            case .awaitingHello(let timer):
                timer.cancel()
                guard case .hello(let hello) = message else {
                    state.phase = .closed
                    return .close(.policyViolation, .helloRequired, "the first message must be hello, not \(message.type)", nil)
                }
                let claims: TokenClaims
                do throws(TokenError) {
                    claims = try context.verifier.verify(hello.token)
                } catch {
                    state.phase = .closed
                    return .close(.badToken, .unauthorized, error.description, nil)
                }
                guard !hello.client.isEmpty, hello.client.utf8.count <= 128 else {
                    state.phase = .closed
                    return .close(.policyViolation, .badMessage, "hello.client must be 1 to 128 bytes", nil)
                }
                do throws(RoomAccess.Denial) {
                    try context.access.check(claims, .join, room: claims.room)
                } catch {
                    state.phase = .closed
                    return .close(.forbidden, .forbidden, error.description, nil)
                }
                guard hello.client != Room.httpClient else {
                    state.phase = .closed
                    return .close(.policyViolation, .badMessage, "client id \"\(Room.httpClient)\" is kept for writes over the HTTP API; choose another", nil)
                }
                let identity = SessionIdentity(user: claims.sub, client: hello.client, role: claims.role)
                state.phase = .joining(identity, queued: [])
                state.room = claims.room
                state.expiry = claims.exp
                var presence: JSONValue = if case .object? = hello.presence { hello.presence! } else { .emptyObject }
                let refusal = depthRefusal(of: presence, "hello.presence")
                if refusal != nil { presence = .emptyObject }
                return .join(claims.room, JoinRequest(identity: identity, name: claims.name, tokenExpiry: claims.exp, presence: presence, resume: hello.resume),
                             refusal: refusal)
            case .joining(let identity, var queued):
                if case .hello = message { return .reply(.error(code: .unexpectedHello, message: "hello was already received")) }
                if case .refresh(let token) = message { return refresh(token, as: identity, in: &state) }
                if case .ping(let t) = message { return .reply(.pong(t: t)) }
                queued.append(message)
                state.phase = .joining(identity, queued: queued)
                return .none
            case .joined(let room, let identity):
                if case .refresh(let token) = message { return refresh(token, as: identity, in: &state) }
                return .forward(room, identity, message)
            case .closed:
                return .none
            }
        }
        perform(action)
    }

    /// Checks a `refresh`: a valid token of the same user, room and role, whom the room still admits, replaces
    /// the one in force (and its expiry); anything else closes the connection as a bad `hello` would.
    private func refresh(_ token: String, as identity: SessionIdentity, in state: inout State) -> Action {
        let claims: TokenClaims
        do throws(TokenError) {
            claims = try context.verifier.verify(token)
        } catch {
            let left = leaveRoom(&state)
            state.phase = .closed
            return .close(.badToken, .unauthorized, "refresh: \(error.description)", left)
        }
        // Once the token in force expired the connection's authorization is over: a late refresh cannot revive it.
        guard context.wallClock() < state.expiry * 1_000 else {
            let left = leaveRoom(&state)
            state.phase = .closed
            return .close(.tokenExpired, .tokenExpired, "refresh came after the token expired (exp \(state.expiry)); reconnect with a fresh token", left)
        }
        guard claims.sub == identity.user, claims.room == state.room, claims.role == identity.role else {
            let left = leaveRoom(&state)
            state.phase = .closed
            return .close(.badToken, .unauthorized,
                          "refresh: the token must be for the same user, room and role as the hello's; reconnect with it instead", left)
        }
        do throws(RoomAccess.Denial) {
            try context.access.check(claims, .join, room: state.room)
        } catch {
            let left = leaveRoom(&state)
            state.phase = .closed
            return .close(.forbidden, .forbidden, error.description, left)
        }
        state.expiry = claims.exp
        context.metrics.tokenRefreshes.increment()
        return .armExpiry(claims.exp)
    }

    /// Closes the connection at `exp` unless a refresh moved the expiry meanwhile.
    private func armExpiry(_ exp: Int64) {
        let delay = max(0, exp * 1_000 - context.wallClock())
        let timer = context.scheduler.schedule(after: .milliseconds(delay)) { [weak self] in self?.expiryReached(exp) }
        let stale: (any ScheduledTimer)? = state.withLock { state in
            if case .closed = state.phase { return timer }
            guard state.expiry == exp else { return timer }
            defer { state.expiryTimer = timer }
            return state.expiryTimer
        }
        stale?.cancel()
    }

    private func expiryReached(_ exp: Int64) {
        // A timer may fire early by the wall clock's reckoning (it runs on a monotonic one): wait for the rest.
        guard context.wallClock() >= exp * 1_000 else { return armExpiry(exp) }
        let left: (Room, SessionIdentity)?? = state.withLock { state in
            if case .closed = state.phase { return nil }
            guard state.expiry == exp else { return nil }
            let left = leaveRoom(&state)
            state.phase = .closed
            return .some(left)
        }
        guard let left else { return }
        perform(.close(.tokenExpired, .tokenExpired,
                       "the token expired (exp \(exp)); send refresh with a fresh token before exp, or reconnect with one", left))
    }

    /// The connection ended; `clean` is true for a 1000 close from the client.
    func connectionClosed(clean: Bool) {
        let left: (Room, SessionIdentity)? = state.withLock { state in
            state.expiryTimer?.cancel()
            if case .awaitingHello(let timer) = state.phase { timer.cancel() }
            let left = leaveRoom(&state)
            state.phase = .closed
            return left
        }
        if let (room, identity) = left { room.disconnect(id, peer: identity.peer, clean: clean) }
    }

    // MARK: - Actions

    private enum Action {
        case none
        case reply(ServerMessage)
        case close(CloseCode, ErrorCode, String, (Room, SessionIdentity)?)
        /// Enter the room; `refusal` (presence that was not taken) is sent first.
        case join(String, JoinRequest, refusal: ServerMessage?)
        case forward(Room, SessionIdentity, ClientMessage)
        /// Close the connection when the token `exp` is reached.
        case armExpiry(Int64)
    }

    private func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .reply(let message):
            sink.send(OutboundMessage(message))
        case .close(let code, let error, let message, let left):
            if let (room, identity) = left { room.disconnect(id, peer: identity.peer, clean: false) }
            context.logger.info("session.closed", LogField("connection", id.description), LogField("code", "\(code.rawValue)"), LogField("reason", message))
            sink.close(code, error: OutboundMessage(.error(code: error, message: message)))
        case .join(let roomName, let request, let refusal):
            if let refusal { sink.send(OutboundMessage(refusal)) }
            armExpiry(request.tokenExpiry)
            enter(roomName, request, attempts: 3)
        case .armExpiry(let exp):
            armExpiry(exp)
        case .forward(let room, let identity, let message):
            forward(message, to: room, as: identity)
        }
    }

    private func forward(_ message: ClientMessage, to room: Room, as identity: SessionIdentity) {
        switch message {
        case .patch(let seq, let ops, let base):
            if context.writes.limits, context.writes.take(room: room.name, user: identity.user, now: context.monotonicNow()) != nil {
                return writesTooFast(room, identity)
            }
            room.submit(seq: seq, ops: ops, base: base, from: id, peer: identity.peer)
        case .presence(let data):
            if let refusal = depthRefusal(of: data, "presence.data") { return sink.send(OutboundMessage(refusal)) }
            room.updatePresence(data, from: id, peer: identity.peer)
        case .signal(let event, let data):
            if let refusal = depthRefusal(of: data, "signal.data") { return sink.send(OutboundMessage(refusal)) }
            room.signal(event: event, data: data, from: id, peer: identity.peer)
        case .ping(let t):
            sink.send(OutboundMessage(.pong(t: t)))
        case .hello:
            sink.send(OutboundMessage(.error(code: .unexpectedHello, message: "hello was already received")))
        case .refresh:
            break // decided in `receive`, never forwarded
        }
    }

    private func enter(_ roomName: String, _ request: JoinRequest, attempts: Int) {
        context.registry.withRoom(roomName) { [self] result in
            switch result {
            case .failure(let error):
                fail(.internalError, .internal, "the room could not be loaded (\(error.description)); try again")
            case .success(let room):
                // A connection that ended while the room loaded never joins (the room may welcome at once).
                guard state.withLock({ if case .joining = $0.phase { true } else { false } }) else { return }
                switch room.join(request, sink: sink, connection: id) {
                case .retired where attempts > 1:
                    enter(roomName, request, attempts: attempts - 1)
                case .retired:
                    fail(.internalError, .internal, "the room is restarting; try again")
                case .refused:
                    state.withLock { $0.phase = .closed }
                case .accepted:
                    joined(room, request.identity)
                }
            }
        }
    }

    /// Forwards what arrived while the room loaded, in order, then moves to `.joined`.
    ///
    /// The phase stays `.joining` until the queue is empty: a message that arrives on the connection's
    /// thread while earlier ones are being handed to the room joins the queue instead of going straight
    /// to the room, where it could overtake them (a later seq applied first turns an earlier one into a
    /// "duplicate" that is acknowledged but never applied).
    private func joined(_ room: Room, _ identity: SessionIdentity) {
        while true {
            let batch: [ClientMessage]? = state.withLock { state in
                guard case .joining(let joining, let queued) = state.phase else { return nil }
                if queued.isEmpty {
                    state.phase = .joined(room, identity)
                } else {
                    state.phase = .joining(joining, queued: [])
                }
                return queued
            }
            guard let batch else {
                // Closed while joining: leave at once.
                room.disconnect(id, peer: identity.peer, clean: false)
                return
            }
            if batch.isEmpty { return }
            for message in batch { forward(message, to: room, as: identity) }
        }
    }

    /// The user's writes to the room (over every connection and the rooms API) outran their allowance:
    /// closed with 4029 like a connection over its own rate; the client resumes and sends the patch again.
    private func writesTooFast(_ room: Room, _ identity: SessionIdentity) {
        let open: Bool = state.withLock { state in
            if case .closed = state.phase { return false }
            state.expiryTimer?.cancel()
            state.phase = .closed
            return true
        }
        guard open else { return }
        let limit = context.configuration
        perform(.close(.rateLimited, .rateLimited,
                       "more than \(limit.rateLimit) changes per second (burst \(limit.rateBurst)) by user '\(identity.user)' in this room, over all their connections and the rooms API; slow down",
                       (room, identity)))
    }

    private func fail(_ code: CloseCode, _ error: ErrorCode, _ message: String) {
        state.withLock { $0.phase = .closed }
        context.logger.error("session.failed", LogField("connection", id.description), LogField("reason", message))
        sink.close(code, error: OutboundMessage(.error(code: error, message: message)))
    }

    private func helloTimedOut() {
        let expired: Bool = state.withLock { state in
            guard case .awaitingHello = state.phase else { return false }
            state.phase = .closed
            return true
        }
        if expired {
            sink.close(.helloTimeout, error: OutboundMessage(.error(code: .helloTimeout, message: "no hello within \(context.configuration.helloTimeout.totalMilliseconds) ms of the upgrade")))
        }
    }

    /// The `too_deep` error for ephemeral data nested deeper than the document may be (the same bound,
    /// so that every message relaying it stays readable), `nil` when it fits.
    private func depthRefusal(of data: JSONValue, _ field: String) -> ServerMessage? {
        let limits = PatchLimits(maxDepth: context.configuration.maxDepth)
        guard let depth = limits.excessDepth(of: data) else { return nil }
        return .error(code: .tooDeep, message: "\(field) nests \(depth) levels deep; at most \(limits.maxDepth) are allowed, so it was not applied")
    }

    private func leaveRoom(_ state: inout State) -> (Room, SessionIdentity)? {
        if case .joined(let room, let identity) = state.phase { return (room, identity) }
        return nil
    }
}
