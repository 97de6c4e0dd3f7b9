import TandemProtocol
import TandemWire

/// Why a request to the invitation API was refused: each case has its HTTP status, a stable `error` word and
/// a message that says what to do. Nothing is created or changed when one of these is answered.
enum InviteAPIError: Error, Sendable, Equatable {
    /// No `Authorization: Bearer` header.
    case missingToken
    /// The bearer token failed verification.
    case badToken(String)
    /// The token may not do this in the room addressed (`RoomAccess` decided).
    case denied(RoomAccess.Denial)
    /// The room named in the URL is not a usable room name.
    case badRoomName(RoomNameError)
    /// The body is not JSON.
    case badJSON(String)
    /// The body is JSON with a missing, unknown or invalid field.
    case invalidField(String)
    /// The body is larger than this API reads.
    case bodyTooLarge(limit: Int)
    /// The body is not sent as `application/json`.
    case unsupportedMediaType(String?)
    /// No such endpoint.
    case notFound
    /// The endpoint exists but not with this method.
    case methodNotAllowed(allowed: String)
    /// No invitation has this code.
    case unknownCode
    /// The invitation expired, was used up or was revoked.
    case gone(InviteBook.GoneReason)
    /// Too many failed accepts; try again after `retryAfter` seconds.
    case throttled(retryAfter: Int64)
    /// The host or the room made too many invitations within the last minute; try again after `retryAfter` seconds.
    case creationThrottled(retryAfter: Int64)
    /// The room has too many live invitations.
    case tooManyInvites(limit: Int)
    /// No free code could be found.
    case codeSpaceFull
    /// Storage failed.
    case storage(String)

    /// The HTTP status.
    var status: Int {
        switch self {
        case .missingToken, .badToken: 401
        case .denied: 403
        case .badJSON, .invalidField, .badRoomName: 400
        case .unsupportedMediaType: 415
        case .bodyTooLarge: 413
        case .notFound, .unknownCode: 404
        case .methodNotAllowed: 405
        case .gone: 410
        case .throttled, .tooManyInvites, .creationThrottled: 429
        case .codeSpaceFull: 503
        case .storage: 500
        }
    }

    /// The `error` word of the JSON body.
    var code: String {
        switch self {
        case .missingToken, .badToken: "unauthorized"
        case .denied(.removed): "removed"
        case .denied: "forbidden"
        case .badRoomName: "invalid_room"
        case .badJSON: "bad_json"
        case .invalidField: "invalid_field"
        case .unsupportedMediaType: "unsupported_media_type"
        case .bodyTooLarge: "body_too_large"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .unknownCode: "unknown_code"
        case .gone(let reason): reason.rawValue
        case .throttled: "too_many_attempts"
        case .tooManyInvites, .creationThrottled: "too_many_invites"
        case .codeSpaceFull: "no_free_code"
        case .storage: "internal"
        }
    }

    /// What went wrong and what to do.
    var message: String {
        switch self {
        case .missingToken: "send the host's token as 'Authorization: Bearer <token>'"
        case .badToken(let reason): "\(reason)"
        case .denied(let denial): denial.description
        case .badRoomName(let error): error.description
        case .badJSON(let reason): "the body is not valid JSON: \(reason)"
        case .invalidField(let reason): reason
        case .bodyTooLarge(let limit): "the body is larger than \(limit) bytes"
        case .unsupportedMediaType(let type): "send the body as application/json, not \(type ?? "without a Content-Type")"
        case .notFound: "no such endpoint; see docs/PROTOCOL.md for the HTTP API"
        case .methodNotAllowed(let allowed): "this endpoint accepts \(allowed)"
        case .unknownCode: "no invitation has this code; check it with the host"
        case .gone(.expired): "this invitation has expired; ask the host for a new one"
        case .gone(.usedUp): "this invitation has been used already; ask the host for a new one"
        case .gone(.revoked): "the host revoked this invitation; ask the host for a new one"
        case .throttled(let seconds): "too many failed attempts; try again in \(seconds) s"
        case .tooManyInvites(let limit): "the room has \(limit) live invitations; revoke some or wait for them to expire"
        case .creationThrottled(let seconds): "too many invitations were made in this room within a minute; try again in \(seconds) s"
        case .codeSpaceFull: "no free invitation code right now; try again shortly"
        case .storage(let reason): "the server could not store the change (\(reason)); try again"
        }
    }

    /// The JSON error response, with `Retry-After`, `Allow` or `WWW-Authenticate` where they apply.
    var response: HTTPResponse {
        var headers: HTTPHeaders = [:]
        switch self {
        case .throttled(let seconds), .creationThrottled(let seconds): headers.add(name: "Retry-After", value: "\(seconds)")
        case .methodNotAllowed(let allowed): headers.add(name: "Allow", value: allowed)
        case .missingToken, .badToken: headers.add(name: "WWW-Authenticate", value: "Bearer")
        default: break
        }
        return .jsonError(status: status, error: code, message: message, headers: headers)
    }
}
