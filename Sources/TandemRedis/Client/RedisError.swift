import TandemWire

/// Why a Redis command did not produce a reply, with a message an operator can act on.
package enum RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server answered with an error reply; `code` is its first word (`ERR`, `WRONGTYPE`, `NOSCRIPT`…).
    case server(code: String, message: String)
    /// No connection could be opened within the allowed attempts.
    case unavailable(endpoint: RedisEndpoint, attempts: Int, lastError: String)
    /// The connection closed while the command was in flight: it may or may not have been applied.
    case connectionLost(endpoint: RedisEndpoint, reason: String)
    /// The command was given to a connection that had already closed; it was not sent.
    case connectionClosed(endpoint: RedisEndpoint)
    /// The server's bytes are not valid RESP; the connection was closed.
    case protocolViolation(RESPProtocolError)
    /// A `redis://` URL could not be understood.
    case invalidURL(String, reason: String)
    /// The reply has a shape the caller did not expect (e.g. a script returned something else).
    case unexpectedReply(command: String, reply: String)

    /// Builds `.server` from an error reply's text, splitting off its code.
    static func fromReply(_ text: String) -> RedisError {
        let code = text.prefix { $0 != " " }
        return .server(code: String(code), message: text)
    }

    /// True for `NOSCRIPT`, the reply to `EVALSHA` when the script is not cached.
    package var isNoScript: Bool {
        if case .server(let code, _) = self { return code == "NOSCRIPT" }
        return false
    }

    /// True for `LOADING`, the reply of a server that is still reading its data after a restart.
    package var isLoading: Bool {
        if case .server(let code, _) = self { return code == "LOADING" }
        return false
    }

    /// True when a Redis Cluster refused a command or script because of where its keys live, before it
    /// ran: a redirection (`MOVED`, `ASK`), keys of several slots (`CROSSSLOT`), a key of another shard
    /// touched by a script, a slot migrating (`TRYAGAIN`). The command may go again, routed anew.
    package var isMisrouted: Bool {
        guard case .server(let code, let message) = self else { return false }
        return ["MOVED", "ASK", "CROSSSLOT", "TRYAGAIN"].contains(code) || message.contains("non local key")
    }

    /// The problem, where it happened, and what to check.
    package var description: String {
        switch self {
        case .server(_, let message):
            return "Redis replied with an error: \(message)"
        case .unavailable(let endpoint, let attempts, let lastError):
            return "cannot reach Redis at \(endpoint) after \(attempts) attempt(s): \(lastError); is redis-server running and reachable from this host?"
        case .connectionLost(let endpoint, let reason):
            return "the connection to Redis at \(endpoint) was lost with a command in flight (\(reason)); the command may or may not have been applied"
        case .connectionClosed(let endpoint):
            return "the connection to Redis at \(endpoint) is closed; the command was not sent"
        case .protocolViolation(let error):
            return error.description
        case .invalidURL(let text, let reason):
            return "invalid Redis URL \"\(text)\": \(reason); expected redis://HOST:PORT"
        case .unexpectedReply(let command, let reply):
            return "unexpected reply to \(command): \(reply)"
        }
    }
}
