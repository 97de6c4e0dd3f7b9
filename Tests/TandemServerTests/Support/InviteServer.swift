import Foundation
import Synchronization
import TandemProtocol
import TandemWire
@testable import TandemServer

/// A real server on 127.0.0.1 (port 0) with a hand-driven wall clock, and an HTTP client for its API.
final class InviteServer: Sendable {
    let server: SyncServer
    let directory: String
    let clock: ManualNumber
    let group: EventLoopGroup

    /// One API answer.
    struct Reply: Sendable {
        var status: Int
        var json: JSONValue?
        var headers: HTTPHeaders
    }

    init(directory: String = SyncServerTests.temporaryDirectory(), clock: ManualNumber = ManualNumber(1_800_000_000),
         random: any RandomByteSource = SecureRandom(), adjust: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.helloTimeout = .seconds(60)
        configuration.handshakeTimeout = .seconds(60)
        adjust(&configuration)
        self.directory = directory
        self.clock = clock
        server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding,
                                wallClock: { clock.value * 1_000 }, random: random)
        group = try EventLoopGroup(threads: 1)
    }

    var baseURL: String { "http://127.0.0.1:\(server.port)" }

    func token(user: String, room: String = "lobby", role: Role = .host, ttl: Int64 = 600) -> String {
        server.tokens.mint(TokenClaims(sub: user, room: room, role: role, exp: clock.value + ttl))
    }

    /// Sends one request; `json` is sent as `application/json` unless `headers` say otherwise.
    func call(_ method: String, _ path: String, token: String? = nil, json: String? = nil, body: [UInt8]? = nil,
              headers: [(String, String)] = []) async throws -> Reply {
        var all = HTTPHeaders(headers)
        if let token { all.add(name: "Authorization", value: "Bearer \(token)") }
        if json != nil && !all.contains(name: "Content-Type") { all.add(name: "Content-Type", value: "application/json") }
        let response = try await HTTPClient.send(method: method, url: baseURL + path, headers: all,
                                                 body: body ?? Array((json ?? "").utf8), timeout: .seconds(30), on: group.next())
        return Reply(status: response.status, json: try? JSONValue.parse(response.body), headers: response.headers)
    }

    /// Creates an invitation as host `user` and returns its code.
    func createInvite(by user: String = "alice", json: String = "{}") async throws -> String {
        let reply = try await call("POST", "/v1/invites", token: token(user: user), json: json)
        guard reply.status == 201, let code = reply.json?["code"]?.stringValue else {
            throw InviteServerError.unexpected(reply.status, reply.json?.description ?? "")
        }
        return code
    }

    func accept(_ code: String, name: String = "Bob") async throws -> Reply {
        try await call("POST", "/v1/invites/\(code)/accept", json: #"{"name":"\#(name)"}"#)
    }

    /// Connects to the sync endpoint and says hello with `token`.
    func connect(token: String, client: String) async throws -> ProtocolClient {
        let peer = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await peer.send(.hello(Hello(token: token, client: client)))
        return peer
    }

    /// Stops the server and the client loops, off the cooperative pool.
    func shutdown(removeData: Bool = true) async {
        await server.shutdown()
        let group = group
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                group.shutdown()
                continuation.resume()
            }
        }
        if removeData { try? FileManager.default.removeItem(atPath: directory) }
    }
}

enum InviteServerError: Error {
    case unexpected(Int, String)
}

/// Random bytes from a script (then zeros), to force code collisions.
final class ScriptedRandom: RandomByteSource {
    private let script: Mutex<[[UInt8]]>

    init(_ script: [[UInt8]]) { self.script = Mutex(script) }

    func bytes(count: Int) -> [UInt8] {
        script.withLock { script in
            guard !script.isEmpty else { return [UInt8](repeating: 0, count: count) }
            return script.removeFirst()
        }
    }
}
