import TandemWireCore

/// Why an invitation request failed, one case per kind of answer, each with the server's message.
public enum InviteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: no token, or the token is invalid or expired.
    case unauthorized(String)
    /// 403: the token's role is not host, or it is for another room.
    case forbidden(String)
    /// 404: no invitation has this code (or no such endpoint).
    case notFound(String)
    /// 410: the invitation expired, was used up or was revoked; `reason` is `expired`, `used_up` or `revoked`.
    case gone(reason: String, message: String)
    /// 429: too many failed attempts (or live invitations); retry after `retryAfter` seconds when given.
    case tooManyRequests(retryAfter: Int?, message: String)
    /// 400, 405, 413, 415: the request was malformed; nothing was created.
    case invalidRequest(status: Int, message: String)
    /// 5xx or another unexpected status.
    case server(status: Int, message: String)
    /// The server could not be reached or did not answer in time.
    case transport(String)
    /// The server answered with something that is not the API's JSON.
    case invalidResponse(String)
    /// TLS could not be set up for an `https://` server (its certificate was refused, or it does not speak TLS).
    case tls(TLSError)

    /// What went wrong, phrased for the user.
    public var description: String {
        switch self {
        case .unauthorized(let message): "not authorized: \(message)"
        case .forbidden(let message): "forbidden: \(message)"
        case .notFound(let message): "not found: \(message)"
        case .gone(_, let message): "invitation no longer valid: \(message)"
        case .tooManyRequests(let retryAfter, let message):
            retryAfter.map { "too many requests (retry in \($0) s): \(message)" } ?? "too many requests: \(message)"
        case .invalidRequest(let status, let message): "request refused (\(status)): \(message)"
        case .server(let status, let message): "server error (\(status)): \(message)"
        case .transport(let message): "cannot reach the server: \(message)"
        case .invalidResponse(let message): "unexpected answer from the server: \(message)"
        case .tls(let error): error.description
        }
    }
}
