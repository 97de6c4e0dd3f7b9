import TandemProtocol
import TandemWireCore

/// Why a request of the rooms API failed, one case per kind of answer, each with the server's message.
public enum RoomsClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401: no token, or the token is invalid or expired.
    case unauthorized(String)
    /// 403: the token is for another room, or its role may not do this.
    case forbidden(String)
    /// 404: no such room (or rev past its head).
    case notFound(String)
    /// 410: the history or state asked for is older than the room keeps.
    case notRetained(String)
    /// 409: the room is at `rev`, not at the `ifRev` of the write.
    case conflict(rev: Int64, message: String)
    /// 400, 413, 422: the ops were refused with the protocol's reject `code`; nothing was applied.
    case refused(code: RejectCode, message: String)
    /// Another 4xx: the request was malformed.
    case invalidRequest(status: Int, message: String)
    /// 5xx or another unexpected status.
    case server(status: Int, message: String)
    /// The server could not be reached or did not answer in time.
    case transport(String)
    /// The server answered with something that is not the API's JSON.
    case invalidResponse(String)
    /// TLS could not be set up for an `https://` server.
    case tls(TLSError)

    /// What went wrong, phrased for the user.
    public var description: String {
        switch self {
        case .unauthorized(let message): "not authorized: \(message)"
        case .forbidden(let message): "forbidden: \(message)"
        case .notFound(let message): "not found: \(message)"
        case .notRetained(let message): "not kept any more: \(message)"
        case .conflict(let rev, let message): "conflict (the room is at rev \(rev)): \(message)"
        case .refused(let code, let message): "refused (\(code)): \(message)"
        case .invalidRequest(let status, let message): "request refused (\(status)): \(message)"
        case .server(let status, let message): "server error (\(status)): \(message)"
        case .transport(let message): "cannot reach the server: \(message)"
        case .invalidResponse(let message): "unexpected answer from the server: \(message)"
        case .tls(let error): error.description
        }
    }
}
