/// What the heartbeat asks the session to do.
public enum HeartbeatAction: Sendable, Hashable {
    /// Send `{"type":"ping","t":t}`.
    case sendPing(t: Double)
    /// Treat the connection as dead: close the transport and reconnect.
    case declareDead(HeartbeatFailure)
}

/// Why the heartbeat gave up on a connection.
public enum HeartbeatFailure: Sendable, Hashable, CustomStringConvertible {
    /// No frame at all arrived for `nanoseconds` (≥ 2 × the interval): a half-open socket.
    case silent(nanoseconds: Int64)
    /// `count` pongs in a row were missed, with no frame in between, over `nanoseconds` since the first
    /// of those pings.
    case pongsMissed(count: Int, nanoseconds: Int64)

    /// What happened, for logs and the status line.
    public var description: String {
        switch self {
        case .silent(let ns): "no data from the server for \(Double(ns) / 1e9) s; the connection is treated as dead"
        case .pongsMissed(let count, let ns):
            "no answer to \(count) pings in a row over \(Double(ns) / 1e9) s and nothing else received; the connection is treated as dead"
        }
    }
}
