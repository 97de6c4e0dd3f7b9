/// The `code` of a server `error` message: what went wrong with the connection or a message
/// (as opposed to `RejectCode`, which refuses one patch).
///
/// Unknown strings decode as `.other` so older clients still show the message.
public enum ErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// A message was not valid JSON (or not a JSON object). The connection stays open.
    case badJSON
    /// A message lacked a field or had one of the wrong type. The connection stays open.
    case badMessage
    /// A message had a `type` this server does not know. The connection stays open.
    case unknownType
    /// A second `hello` on an established connection. The connection stays open.
    case unexpectedHello
    /// Presence or signal data nested deeper than `limits.maxDepth`: it was not applied or relayed.
    /// The connection stays open.
    case tooDeep
    /// The first message was not `hello`; closed with 1008.
    case helloRequired
    /// No `hello` arrived in time; closed with 4008.
    case helloTimeout
    /// The token is malformed, badly signed, expired or for another room; closed with 4001.
    case unauthorized
    /// The token expired on the open connection and no `refresh` replaced it; closed with 4010.
    case tokenExpired
    /// The user may not be in this room; closed with 4003.
    case forbidden
    /// The room was deleted (over the HTTP API); closed with 4004.
    case roomDeleted
    /// The room has no room for another participant; closed with 4013.
    case roomFull
    /// Too many messages; closed with 4029.
    case rateLimited
    /// A message exceeded `limits.maxMessage`; closed with 1009.
    case messageTooLarge
    /// The connection could not keep up with its room; closed with 4002.
    case slowConsumer
    /// A newer connection with the same client id took over; closed with 4009.
    case replaced
    /// No frame arrived within the idle timeout; closed with 4000.
    case idleTimeout
    /// The server is shutting down; closed with 1001.
    case shuttingDown
    /// The server failed internally; closed with 1011.
    case `internal`
    /// A code from a newer protocol revision.
    case other(String)

    /// Every code this version defines (all but `.other`).
    public static let allDefined: [ErrorCode] = [
        .badJSON, .badMessage, .unknownType, .unexpectedHello, .tooDeep, .helloRequired, .helloTimeout, .unauthorized,
        .tokenExpired, .forbidden, .roomDeleted, .roomFull, .rateLimited, .messageTooLarge, .slowConsumer, .replaced, .idleTimeout,
        .shuttingDown, .internal,
    ]

    /// The wire string of this code.
    public var wireValue: String {
        switch self {
        case .badJSON: "bad_json"
        case .badMessage: "bad_message"
        case .unknownType: "unknown_type"
        case .unexpectedHello: "unexpected_hello"
        case .tooDeep: "too_deep"
        case .helloRequired: "hello_required"
        case .helloTimeout: "hello_timeout"
        case .unauthorized: "unauthorized"
        case .tokenExpired: "token_expired"
        case .forbidden: "forbidden"
        case .roomDeleted: "room_deleted"
        case .roomFull: "room_full"
        case .rateLimited: "rate_limited"
        case .messageTooLarge: "message_too_large"
        case .slowConsumer: "slow_consumer"
        case .replaced: "replaced"
        case .idleTimeout: "idle_timeout"
        case .shuttingDown: "shutting_down"
        case .internal: "internal"
        case .other(let code): code
        }
    }

    /// Maps a wire string to its code (`.other` for unknown strings).
    public init(wireValue: String) {
        self = Self.allDefined.first { $0.wireValue == wireValue } ?? .other(wireValue)
    }

    /// The close code that follows this error, or `nil` when the connection stays open.
    public var closeCode: CloseCode? {
        switch self {
        case .badJSON, .badMessage, .unknownType, .unexpectedHello, .tooDeep, .other: nil
        case .helloRequired: .policyViolation
        case .helloTimeout: .helloTimeout
        case .unauthorized: .badToken
        case .tokenExpired: .tokenExpired
        case .forbidden: .forbidden
        case .roomDeleted: .roomDeleted
        case .roomFull: .roomFull
        case .rateLimited: .rateLimited
        case .messageTooLarge: .messageTooBig
        case .slowConsumer: .sendQueueOverflow
        case .replaced: .replaced
        case .idleTimeout: .idleTimeout
        case .shuttingDown: .goingAway
        case .internal: .internalError
        }
    }

    /// The wire string.
    public var description: String { wireValue }
}
