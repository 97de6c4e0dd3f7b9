import TandemProtocol
import TandemWireCore
#if TANDEM_WIRE_TRANSPORT
import TandemWire
#endif

/// The client of a Tandem server's invitation API: a host creates, lists and revokes invitations and removes
/// participants; a guest accepts a code and gets a token for `SyncSession`.
///
/// HTTP/1.1 (`http://` or `https://`) over URLSession on Apple platforms and Tandem's own event loops on
/// Linux. Every failure is a typed ``InviteError``.
public struct InviteClient: Sendable {
    /// The server's base URL, e.g. `https://tandem.example.com` or `http://127.0.0.1:8080`.
    public var baseURL: String { exchange.baseURL }
    /// The host's token, for everything but ``acceptInvite(code:name:)``.
    public let token: String?
    private let exchange: JSONAPIExchange

    #if TANDEM_WIRE_TRANSPORT
    /// Creates a client for the server at `baseURL` (`http://` or `https://HOST[:PORT]`; a trailing `/` is
    /// ignored). Requests run on `group` (the caller's) or on a loop of the client's own when nil; `https://`
    /// servers are verified against `tls` (the system's trust store by default).
    public init(baseURL: String, token: String? = nil, group: EventLoopGroup? = nil, tls: TLSConfiguration = .client(),
                timeout: Duration = .seconds(10)) {
        self.init(baseURL: baseURL, token: token, transport: WireHTTPTransport(group: group, tls: tls), timeout: timeout)
    }
    #else
    /// Creates a client for the server at `baseURL` (`http://` or `https://HOST[:PORT]`; a trailing `/` is
    /// ignored), over URLSession (the system's trust store and App Transport Security).
    public init(baseURL: String, token: String? = nil, timeout: Duration = .seconds(10)) {
        self.init(baseURL: baseURL, token: token, transport: URLSessionHTTPTransport(), timeout: timeout)
    }
    #endif

    /// A client over `transport` (tests run both kinds against a server).
    package init(baseURL: String, token: String? = nil, transport: any HTTPAPITransport, timeout: Duration = .seconds(10)) {
        self.token = token
        exchange = JSONAPIExchange(baseURL: baseURL, transport: transport, timeout: timeout)
    }

    /// Creates an invitation to the host's room (defaults: guest, 20 minutes, one use).
    public func createInvite(role: Role = .guest, ttl: Int = 1200, uses: Int = 1) async throws(InviteError) -> Invitation {
        let body: JSONValue = .object(["role": .string(role.rawValue), "ttl": .number(Double(ttl)), "uses": .number(Double(uses))])
        let json = try await request("POST", "/v1/invites", body: body, authorized: true, expecting: 201)
        return try Self.invitation(json)
    }

    /// Lists the live invitations of the host's room, soonest expiry first.
    public func listInvites() async throws(InviteError) -> [Invitation] {
        let json = try await request("GET", "/v1/invites", body: nil, authorized: true, expecting: 200)
        guard let items = json["invites"]?.arrayValue else { throw .invalidResponse("no \"invites\" array") }
        var result: [Invitation] = []
        for item in items { result.append(try Self.invitation(item)) }
        return result
    }

    /// Revokes an invitation of the host's room; later accepts get 410.
    public func revokeInvite(code: String) async throws(InviteError) {
        _ = try await request("DELETE", "/v1/invites/\(Self.escaped(code))", body: nil, authorized: true, expecting: 200)
    }

    /// Removes `user` from `room` (the host's): their connections close with 4003 and they are refused there on
    /// every path, whatever token they hold, until a host calls ``readmitParticipant(_:to:)``. A guest's
    /// invitation is revoked with them. Returns how many connections were closed.
    @discardableResult
    public func removeParticipant(_ user: String, from room: String) async throws(InviteError) -> Int {
        let json = try await request("POST", "/v1/rooms/\(Self.escaped(room))/remove", body: .object(["user": .string(user)]),
                                     authorized: true, expecting: 200)
        return Int(json["closed"]?.doubleValue ?? 0)
    }

    /// Lets a removed `user` into `room` again. Returns whether they had been removed.
    @discardableResult
    public func readmitParticipant(_ user: String, to room: String) async throws(InviteError) -> Bool {
        let json = try await request("POST", "/v1/rooms/\(Self.escaped(room))/readmit", body: .object(["user": .string(user)]),
                                     authorized: true, expecting: 200)
        return json["readmitted"]?.boolValue ?? false
    }

    /// The users removed from `room`, by id.
    public func removedParticipants(in room: String) async throws(InviteError) -> [String] {
        let json = try await request("GET", "/v1/rooms/\(Self.escaped(room))/removed", body: nil, authorized: true, expecting: 200)
        guard let users = json["users"]?.arrayValue else { throw .invalidResponse("no \"users\" array") }
        return users.compactMap(\.stringValue)
    }

    /// Accepts an invitation code (no token needed) and returns the token the server minted, shown to others
    /// under `name`.
    public func acceptInvite(code: String, name: String? = nil) async throws(InviteError) -> AcceptedInvitation {
        let body: JSONValue = .object(name.map { ["name": .string($0)] } ?? [:])
        let json = try await request("POST", "/v1/invites/\(Self.escaped(code))/accept", body: body, authorized: false, expecting: 200)
        guard let token = json["token"]?.stringValue, let room = json["room"]?.stringValue,
              let role = json["role"]?.stringValue.flatMap(Role.init(rawValue:)), let user = json["user"]?.stringValue,
              let expiresAt = json["expiresAt"]?.doubleValue
        else { throw .invalidResponse("the accept answer lacks token, room, role, user or expiresAt") }
        return AcceptedInvitation(token: token, room: room, role: role, user: user, expiresAt: Int64(expiresAt))
    }

    // MARK: - Exchange

    private func request(_ method: String, _ path: String, body: JSONValue?, authorized: Bool, expecting status: Int) async throws(InviteError) -> JSONValue {
        if authorized, token == nil { throw .unauthorized("this call needs the host's token; create the client with token:") }
        let answer: (response: HTTPResponse, json: JSONValue?)
        do throws(HTTPAPIFailure) {
            answer = try await exchange.send(method, path, body: body, token: authorized ? token : nil)
        } catch {
            switch error {
            case .transport(let reason): throw .transport(reason)
            case .tls(let failure): throw .tls(failure)
            }
        }
        guard answer.response.status == status else { throw Self.error(for: answer.response, json: answer.json) }
        guard let json = answer.json else { throw .invalidResponse("status \(answer.response.status) without a JSON body") }
        return json
    }

    static func error(for response: HTTPResponse, json: JSONValue?) -> InviteError {
        let message = json?["message"]?.stringValue ?? String(decoding: response.body.prefix(200), as: UTF8.self)
        switch response.status {
        case 401: return .unauthorized(message)
        case 403: return .forbidden(message)
        case 404: return .notFound(message)
        case 410: return .gone(reason: json?["error"]?.stringValue ?? "gone", message: message)
        case 429: return .tooManyRequests(retryAfter: response.headers["Retry-After"].flatMap { Int($0) }, message: message)
        case 400..<500: return .invalidRequest(status: response.status, message: message)
        default: return .server(status: response.status, message: message)
        }
    }

    private static func invitation(_ json: JSONValue) throws(InviteError) -> Invitation {
        guard let code = json["code"]?.stringValue, let role = json["role"]?.stringValue.flatMap(Role.init(rawValue:)),
              let expiresAt = json["expiresAt"]?.doubleValue
        else { throw .invalidResponse("an invitation lacks code, role or expiresAt") }
        let uses = json["usesLeft"]?.doubleValue ?? json["uses"]?.doubleValue ?? 0
        return Invitation(code: code, role: role, expiresAt: Int64(expiresAt), usesLeft: Int(uses), url: json["url"]?.stringValue)
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986 §2.3), for a path segment.
    static func escaped(_ segment: String) -> String { JSONAPIExchange.escaped(segment) }
}
