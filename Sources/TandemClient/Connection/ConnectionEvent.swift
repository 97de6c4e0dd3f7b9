import TandemProtocol

/// What drives the connection state machine. `lost` carries the decision the `ReconnectPolicy`
/// made, so the transition table stays a pure function of state and event.
public enum ConnectionEvent: Sendable, Hashable {
    /// The app starts the connection.
    case connect
    /// The transport opened and `hello` went out.
    case transportOpened
    /// `welcome` arrived.
    case welcomed
    /// The connection (or an attempt) ended; the policy's decision says what follows.
    case lost(ReconnectDecision)
    /// The reconnect delay elapsed; the next attempt starts.
    case retry
    /// The app closes the connection.
    case close
    /// The app puts the session aside (background).
    case suspend
    /// The app takes a suspended session up again.
    case resume
}

/// The policy's answer to a lost connection.
public enum ReconnectDecision: Sendable, Hashable {
    /// Try again: attempt number and the wait before it.
    case retry(attempt: Int, delay: Duration)
    /// Do not try again.
    case stop(ConnectionCloseReason)
}
