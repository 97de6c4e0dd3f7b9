/// A WebSocket close status code as protocol v1 uses it, with what a client should do next.
///
/// A struct rather than an enum so codes from peers or newer servers are representable; the
/// named constants are all codes of protocol v1.
public struct CloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric status code.
    public let rawValue: UInt16

    /// Creates a code from its number.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: normal closure (a client closing on purpose leaves the room at once).
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the server is shutting down.
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: WebSocket protocol error.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1007: a message's data does not fit its type: a text frame that is not valid UTF-8, or a
    /// message the receiver cannot decode.
    public static let invalidUTF8 = CloseCode(rawValue: 1007)
    /// 1008: policy violation (for example a first message that is not `hello`).
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message exceeded `limits.maxMessage`.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: internal server error.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 4000: no frame received within the idle timeout.
    public static let idleTimeout = CloseCode(rawValue: 4000)
    /// 4001: the token is malformed, badly signed, expired or for another room.
    public static let badToken = CloseCode(rawValue: 4001)
    /// 4002: the connection's send queue overflowed (a slow consumer).
    public static let sendQueueOverflow = CloseCode(rawValue: 4002)
    /// 4003: forbidden (for example the user was removed from the room).
    public static let forbidden = CloseCode(rawValue: 4003)
    /// 4004: the room was deleted (its state and history are gone; a room of that name is a new one).
    public static let roomDeleted = CloseCode(rawValue: 4004)
    /// 4008: no `hello` within 5 s of the upgrade.
    public static let helloTimeout = CloseCode(rawValue: 4008)
    /// 4009: replaced by a newer connection with the same client id.
    public static let replaced = CloseCode(rawValue: 4009)
    /// 4010: the token expired while the connection was open (no `refresh` came in time); reconnect with a
    /// fresh token and resume.
    public static let tokenExpired = CloseCode(rawValue: 4010)
    /// 4013: the room is full.
    public static let roomFull = CloseCode(rawValue: 4013)
    /// 4029: rate limit exceeded.
    public static let rateLimited = CloseCode(rawValue: 4029)

    /// Every code protocol v1 defines, in numeric order.
    public static let allDefined: [CloseCode] = [
        .normal, .goingAway, .protocolError, .invalidUTF8, .policyViolation, .messageTooBig, .internalError,
        .idleTimeout, .badToken, .sendQueueOverflow, .forbidden, .roomDeleted, .helloTimeout, .replaced, .tokenExpired, .roomFull, .rateLimited,
    ]

    /// What a client does after the server closed with a code.
    public enum ReconnectPolicy: Sendable, Hashable {
        /// Reconnect (with backoff) and resume from the last confirmed `{epoch, rev}`.
        case resume
        /// Reconnect only if the token provider yields a fresh token; otherwise stop.
        case resumeWithFreshToken
        /// Do not reconnect: the refusal would repeat (forbidden, or another connection took over).
        case stop
    }

    /// The client's course of action after this code: everything is resumed except 4001 and 4010
    /// (only with a fresh token), 4003, 4004 and 4009. Unknown codes resume.
    public var reconnectPolicy: ReconnectPolicy {
        switch self {
        case .badToken, .tokenExpired: .resumeWithFreshToken
        case .forbidden, .roomDeleted, .replaced: .stop
        default: .resume
        }
    }

    /// Whether a client may reconnect at all after this code (`true` also for 4001, where a
    /// fresh token is needed).
    public var allowsReconnect: Bool { reconnectPolicy != .stop }

    /// A short reason phrase suitable for the close frame (ASCII, well under 123 bytes).
    public var reason: String {
        switch self {
        case .normal: "normal closure"
        case .goingAway: "server shutting down"
        case .protocolError: "protocol error"
        case .invalidUTF8: "invalid UTF-8"
        case .policyViolation: "policy violation"
        case .messageTooBig: "message too big"
        case .internalError: "internal error"
        case .idleTimeout: "idle timeout"
        case .badToken: "bad or expired token"
        case .sendQueueOverflow: "send queue overflow"
        case .forbidden: "forbidden"
        case .roomDeleted: "room deleted"
        case .helloTimeout: "no hello in time"
        case .replaced: "replaced by a newer connection"
        case .tokenExpired: "token expired"
        case .roomFull: "room full"
        case .rateLimited: "rate limited"
        default: "close code \(rawValue)"
        }
    }

    /// The number and reason, e.g. `4029 (rate limited)`.
    public var description: String { "\(rawValue) (\(reason))" }
}
