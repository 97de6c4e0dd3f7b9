import TandemKit
import TandemProtocol

/// The connection state machine: idle → connecting → handshaking → connected →
/// reconnecting(attempt, delay) → … → closed(reason), on TandemKit's `StateMachine`, with the
/// reconnect rules of `ReconnectPolicy`. Any live state can be suspended by the app; a suspended
/// lifecycle resumes into connecting.
///
/// Pure and deterministic: time (nanoseconds) and the random source are passed in. The networked
/// session owns one, feeds it transport events, and publishes `state` to the app.
public struct ConnectionLifecycle: Sendable {
    /// The reconnect rules.
    public let policy: ReconnectPolicy
    private var machine: StateMachine<ConnectionState, ConnectionEvent>
    private var failedAttempts = 0
    private var connectedAt: Int64?
    private var lastCode: CloseCode?

    /// Creates a lifecycle in `idle`.
    public init(policy: ReconnectPolicy = ReconnectPolicy()) {
        self.policy = policy
        machine = StateMachine(initial: .idle, table: Self.table)
    }

    /// The current state.
    public var state: ConnectionState { machine.state }

    /// The transition table (also usable for a DOT diagram).
    public static let table: TransitionTable<ConnectionState, ConnectionEvent> = {
        typealias T = Transition<ConnectionState, ConnectionEvent>
        let reconnecting = TransitionMatcher<ConnectionState>.kind("reconnecting") {
            if case .reconnecting = $0 { true } else { false }
        }
        let open = TransitionMatcher<ConnectionState>.kind("open") {
            if case .closed = $0 { false } else { true }
        }
        let lost = TransitionMatcher<ConnectionEvent>.kind("lost") { if case .lost = $0 { true } else { false } }
        let afterLoss = TransitionTarget<ConnectionState, ConnectionEvent>.computed("reconnecting | closed") { state, event in
            guard case .lost(let decision) = event else { return state }
            switch decision {
            case .retry(let attempt, let delay): return .reconnecting(attempt: attempt, delay: delay)
            case .stop(let reason): return .closed(reason)
            }
        }
        return TransitionTable([
            T(from: .idle, on: .connect, to: .connecting),
            T(from: .connecting, on: .transportOpened, to: .handshaking),
            T(from: .handshaking, on: .welcomed, to: .connected),
            T(from: .oneOf([.connecting, .handshaking, .connected]), on: lost, to: afterLoss),
            T(from: reconnecting, on: .exactly(.retry), to: .state(.connecting)),
            T(from: .oneOf([.connecting, .handshaking, .connected]), on: .exactly(.suspend), to: .state(.suspended)),
            T(from: reconnecting, on: .exactly(.suspend), to: .state(.suspended)),
            T(from: .suspended, on: .resume, to: .connecting),
            T(from: open, on: .exactly(.close), to: .state(.closed(.closedByApp))),
        ])
    }()

    /// Applies `event`.
    /// - Throws: `ConnectionLifecycleError.impossible` when the state has no such transition.
    @discardableResult
    public mutating func handle(_ event: ConnectionEvent) throws(ConnectionLifecycleError) -> ConnectionState {
        do {
            return try machine.handle(event)
        } catch {
            throw .impossible(event: event, state: machine.state)
        }
    }

    /// The app starts connecting.
    public mutating func connect() throws(ConnectionLifecycleError) { try handle(.connect) }

    /// The transport is open and `hello` was sent.
    public mutating func transportOpened() throws(ConnectionLifecycleError) { try handle(.transportOpened) }

    /// `welcome` arrived at `now` (nanoseconds).
    public mutating func welcomed(now: Int64) throws(ConnectionLifecycleError) {
        try handle(.welcomed)
        connectedAt = now
        lastCode = nil
    }

    /// The reconnect delay elapsed.
    public mutating func retry() throws(ConnectionLifecycleError) { try handle(.retry) }

    /// The app closes the connection.
    public mutating func close() throws(ConnectionLifecycleError) { try handle(.close) }

    /// The app puts the session aside; the attempt count starts over on `resume`.
    public mutating func suspend() throws(ConnectionLifecycleError) {
        try handle(.suspend)
        connectedAt = nil
    }

    /// The app takes the session up again: connecting at once, the backoff started over.
    public mutating func resume() throws(ConnectionLifecycleError) {
        try handle(.resume)
        resetBackoff()
    }

    /// Starts the backoff over (a network path change: the next retry is attempt 1).
    public mutating func resetBackoff() {
        failedAttempts = 0
        lastCode = nil
    }

    /// An attempt failed in a way retrying cannot fix (`error.isPermanent`): the connection closes for good.
    @discardableResult
    public mutating func failedForGood(_ error: SyncTransportError) throws(ConnectionLifecycleError) -> ConnectionState {
        connectedAt = nil
        return try handle(.lost(.stop(.transportFailed(error))))
    }

    /// The connection or the attempt ended at `now` with `code` (`nil`: no close frame). Asks the
    /// policy and moves to `reconnecting` or `closed`. A connection that had been up for
    /// `policy.stableAfter` starts the backoff over at attempt 1.
    @discardableResult
    public mutating func connectionLost(
        code: CloseCode?, now: Int64, freshTokenAvailable: Bool = true, using generator: inout some RandomNumberGenerator
    ) throws(ConnectionLifecycleError) -> ConnectionState {
        let event = ConnectionEvent.lost(.stop(.closedByApp)) // shape only, to check the transition exists
        guard machine.canHandle(event) else { throw .impossible(event: event, state: machine.state) }
        if let connectedAt, Duration.nanoseconds(now - connectedAt) >= policy.stableAfter { failedAttempts = 0 }
        connectedAt = nil
        failedAttempts += 1
        let decision = policy.decide(
            code: code, attempt: failedAttempts, freshTokenAvailable: freshTokenAvailable, previousCode: lastCode,
            using: &generator)
        lastCode = code
        return try handle(.lost(decision))
    }
}
