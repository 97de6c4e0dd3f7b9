import TandemProtocol
import TandemWire

/// Why a request to the rooms API was refused, with its HTTP status, a stable `error` word and a message
/// that says what to do (the shape of the invitation API's errors). Nothing is changed when one of
/// these is answered.
enum RoomAPIError: Error, Sendable {
    /// A refusal the invitation API shares: token, body, endpoint or method.
    case request(InviteAPIError)
    /// No room of this name was ever stored.
    case unknownRoom(String)
    /// The history asked for is older than what the room keeps.
    case notRetained(after: Int64, oldest: Int64)
    /// The state at `rev` can no longer be rebuilt: the oldest kept is at `oldest`.
    case stateNotRetained(rev: Int64, oldest: Int64)
    /// The rev asked for is past the room's stored head.
    case pastHead(rev: Int64, head: Int64)
    /// `ifRev` named another rev than the room's.
    case conflict(expected: Int64, rev: Int64)
    /// The ops were refused, with the protocol's reject code.
    case refused(RejectCode, message: String)
    /// The token's user changed the room faster than `limit` writes a second (over every path); retry after
    /// `retryAfter` seconds.
    case rateLimited(retryAfter: Int64, limit: Int)
    /// The server could not do it.
    case failed(String)

    /// The HTTP status.
    var status: Int {
        switch self {
        case .request(let error): error.status
        case .unknownRoom: 404
        case .notRetained, .stateNotRetained: 410
        case .pastHead: 404
        case .conflict: 409
        case .refused(let code, _):
            switch code {
            case .invalidPath, .invalidOp: 400
            case .tooManyOps, .tooLarge: 413
            case .forbidden: 403
            default: 422
            }
        case .rateLimited: 429
        case .failed: 500
        }
    }

    /// The `error` word of the JSON body.
    var code: String {
        switch self {
        case .request(let error): error.code
        case .unknownRoom: "unknown_room"
        case .notRetained, .stateNotRetained: "not_retained"
        case .pastHead: "past_head"
        case .conflict: "conflict"
        case .refused(let code, _): code.wireValue
        case .rateLimited: "rate_limited"
        case .failed: "internal"
        }
    }

    /// What went wrong and what to do.
    var message: String {
        switch self {
        case .request(let error): error.message
        case .unknownRoom(let room): "there is no room '\(room)'; a room exists once someone joined it or wrote to it"
        case .notRetained(let after, let oldest):
            "the history after rev \(after) is no longer kept; the oldest kept starts after rev \(oldest)"
        case .stateNotRetained(let rev, let oldest):
            "the state at rev \(rev) is no longer kept; the oldest that can be rebuilt is at rev \(oldest)"
        case .pastHead(let rev, let head): "the room's stored history ends at rev \(head), before rev \(rev)"
        case .conflict(let expected, let rev): "the room is at rev \(rev), not \(expected); read it again and retry"
        case .refused(_, let message): message
        case .rateLimited(let seconds, let limit):
            "this user changes the room faster than \(limit) times a second over all their connections and this API; try again in \(seconds) s"
        case .failed(let reason): "the server could not do it (\(reason)); try again"
        }
    }

    /// The JSON error response, with the headers the invitation API's errors carry; a conflict also
    /// names the room's `rev`.
    var response: HTTPResponse {
        switch self {
        case .request(let error): error.response
        case .conflict(_, let rev):
            .json(status: status, .object(["error": .string(code), "message": .string(message), "rev": .number(Double(rev))]))
        case .rateLimited(let seconds, _):
            .jsonError(status: status, error: code, message: message, headers: ["Retry-After": "\(seconds)"])
        default: .jsonError(status: status, error: code, message: message)
        }
    }
}
