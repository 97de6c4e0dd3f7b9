import TandemProtocol
import TandemWireCore
#if TANDEM_WIRE_TRANSPORT
import TandemWire
#endif

/// The client of a Tandem server's rooms API, for backends: read a room, page through its history, read
/// its state at a rev, write to it (optionally only while it is at a rev) and delete it, without a
/// socket. With a token of the room or a backend's (room `*`).
///
/// HTTP/1.1 (`http://` or `https://`) over URLSession on Apple platforms and Tandem's own event loops on
/// Linux. Every failure is a typed ``RoomsClientError``.
public struct RoomsClient: Sendable {
    /// The server's base URL, e.g. `https://tandem.example.com` or `http://127.0.0.1:8080`.
    public var baseURL: String { exchange.baseURL }
    private let token: String
    private let exchange: JSONAPIExchange

    #if TANDEM_WIRE_TRANSPORT
    /// Creates a client for the server at `baseURL` acting with `token`. Requests run on `group` (the
    /// caller's) or on a loop of the client's own when nil; `https://` servers are verified against `tls`.
    public init(baseURL: String, token: String, group: EventLoopGroup? = nil, tls: TLSConfiguration = .client(),
                timeout: Duration = .seconds(10)) {
        self.init(baseURL: baseURL, token: token, transport: WireHTTPTransport(group: group, tls: tls), timeout: timeout)
    }
    #else
    /// Creates a client for the server at `baseURL` acting with `token`, over URLSession (the system's
    /// trust store and App Transport Security).
    public init(baseURL: String, token: String, timeout: Duration = .seconds(10)) {
        self.init(baseURL: baseURL, token: token, transport: URLSessionHTTPTransport(), timeout: timeout)
    }
    #endif

    /// A client over `transport` (tests run both kinds against a server).
    package init(baseURL: String, token: String, transport: any HTTPAPITransport, timeout: Duration = .seconds(10)) {
        self.token = token
        exchange = JSONAPIExchange(baseURL: baseURL, transport: transport, timeout: timeout)
    }

    /// The room's state, rev and participants.
    public func room(_ room: String) async throws(RoomsClientError) -> RoomSnapshot {
        let json = try await request("GET", "/v1/rooms/\(JSONAPIExchange.escaped(room))", body: nil)
        guard let epoch = json["epoch"]?.stringValue, let rev = json["rev"]?.doubleValue, let state = json["state"],
              let participants = json["participants"]?.arrayValue
        else { throw .invalidResponse("a room lacks epoch, rev, state or participants") }
        var list: [Participant] = []
        for item in participants {
            do throws(MessageDecodingError) {
                list.append(try Participant(json: item))
            } catch {
                throw .invalidResponse("a participant: \(error)")
            }
        }
        return RoomSnapshot(room: room, epoch: epoch, rev: Int64(rev), state: state, participants: list)
    }

    /// The patches after rev `after`, at most `limit` (the server's default when nil).
    public func history(_ room: String, after: Int64 = 0, limit: Int? = nil) async throws(RoomsClientError) -> HistoryPage {
        var path = "/v1/rooms/\(JSONAPIExchange.escaped(room))/history?after=\(after)"
        if let limit { path += "&limit=\(limit)" }
        let json = try await request("GET", path, body: nil)
        guard let epoch = json["epoch"]?.stringValue, let items = json["patches"]?.arrayValue else {
            throw .invalidResponse("a history page lacks epoch or patches")
        }
        var patches: [RecordedPatch] = []
        patches.reserveCapacity(items.count)
        for item in items {
            guard let rev = item["rev"]?.doubleValue, let time = item["time"]?.doubleValue, let user = item["user"]?.stringValue,
                  let client = item["client"]?.stringValue, let seq = item["seq"]?.doubleValue, let list = item["ops"],
                  let ops = try? PatchOp.list(from: list)
            else { throw .invalidResponse("a recorded patch lacks rev, time, user, client, seq or readable ops") }
            patches.append(RecordedPatch(rev: Int64(rev), time: Int64(time), user: user, client: client, seq: Int64(seq), ops: ops))
        }
        return HistoryPage(epoch: epoch, patches: patches, next: json["next"]?.doubleValue.map { Int64($0) })
    }

    /// The state right after rev `rev`.
    public func state(_ room: String, rev: Int64) async throws(RoomsClientError) -> JSONValue {
        let json = try await request("GET", "/v1/rooms/\(JSONAPIExchange.escaped(room))/state?rev=\(rev)", body: nil)
        guard let state = json["state"] else { throw .invalidResponse("no \"state\"") }
        return state
    }

    /// Writes `ops` as the token's user and returns the rev they were applied at, once durable. With
    /// `ifRev`, only while the room is at that rev (`.conflict` otherwise).
    @discardableResult
    public func write(_ room: String, ops: [PatchOp], ifRev: Int64? = nil) async throws(RoomsClientError) -> Int64 {
        var body: [String: JSONValue] = ["ops": .array(ops.map(\.jsonValue))]
        if let ifRev { body["ifRev"] = .number(Double(ifRev)) }
        let json = try await request("POST", "/v1/rooms/\(JSONAPIExchange.escaped(room))/patch", body: .object(body))
        guard let rev = json["rev"]?.doubleValue else { throw .invalidResponse("no \"rev\"") }
        return Int64(rev)
    }

    /// Deletes the room: its connections are closed with 4004, its state and history removed.
    public func delete(_ room: String) async throws(RoomsClientError) {
        _ = try await request("DELETE", "/v1/rooms/\(JSONAPIExchange.escaped(room))", body: nil)
    }

    // MARK: - Exchange

    private func request(_ method: String, _ path: String, body: JSONValue?) async throws(RoomsClientError) -> JSONValue {
        let answer: (response: HTTPResponse, json: JSONValue?)
        do throws(HTTPAPIFailure) {
            answer = try await exchange.send(method, path, body: body, token: token)
        } catch {
            switch error {
            case .transport(let reason): throw .transport(reason)
            case .tls(let failure): throw .tls(failure)
            }
        }
        let json = answer.json
        let status = answer.response.status
        guard status == 200 else {
            let message = json?["message"]?.stringValue ?? String(decoding: answer.response.body.prefix(200), as: UTF8.self)
            let word = json?["error"]?.stringValue ?? ""
            switch status {
            case 401: throw .unauthorized(message)
            case 403: throw .forbidden(message)
            case 404: throw .notFound(message)
            case 409: throw .conflict(rev: Int64(json?["rev"]?.doubleValue ?? -1), message: message)
            case 410: throw .notRetained(message)
            case 400..<500 where [400, 413, 422].contains(status) && RejectCode(wireValue: word).isPatchRefusal:
                throw .refused(code: RejectCode(wireValue: word), message: message)
            case 400..<500: throw .invalidRequest(status: status, message: message)
            default: throw .server(status: status, message: message)
            }
        }
        guard let json else { throw .invalidResponse("status 200 without a JSON body") }
        return json
    }
}

extension RejectCode {
    /// Whether this is a code the server refuses ops with (rather than a word of the HTTP layer).
    fileprivate var isPatchRefusal: Bool {
        if case .other = self { return false }
        return true
    }
}
