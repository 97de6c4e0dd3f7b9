import Foundation
import TandemProtocol
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// A real `tandem serve` on a fresh data folder, with what a test drives it with: tokens signed with its
/// secret, one event loop for protocol clients and HTTP calls. `stop()` ends the process and removes the folder.
final class ServedProcess: @unchecked Sendable {
    let data = SyncServerTests.temporaryDirectory()
    let secret: String
    let group: EventLoopGroup
    let verifier: TokenVerifier
    private(set) var process: ChildProcess
    /// The sync URL of the running process.
    private(set) var syncURL: String

    /// Starts `tandem serve` with `secret`.
    init(secret: String) async throws {
        self.secret = secret
        group = try EventLoopGroup(threads: 1)
        verifier = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                 now: { Int64(Date().timeIntervalSince1970) })
        let (data, secret) = (data, secret)
        (process, syncURL) = try await offload { try ServeProcess.serve(data: data, secret: secret) }
    }

    /// The HTTP base of the running process.
    var base: String { "http://127.0.0.1:\(ServeProcess.port(of: syncURL) ?? 0)" }

    /// A token for `user` in `room` with `role`, expiring `lifetime` seconds from now (negative: already expired).
    func token(_ user: String, room: String = "lobby", role: Role, lifetime: Int64 = 600) -> String {
        verifier.mint(TokenClaims(sub: user, room: room, role: role, exp: verifier.currentTime + lifetime))
    }

    /// One HTTP request with `token` as its bearer; its status and its body as JSON (nil when it is not).
    func call(_ method: String, _ path: String, token: String, json: String? = nil) async throws -> (status: Int, body: JSONValue?) {
        var headers: HTTPHeaders = ["Authorization": "Bearer \(token)"]
        if json != nil { headers.add(name: "Content-Type", value: "application/json") }
        let reply = try await HTTPClient.send(method: method, url: base + path, headers: headers, body: Array((json ?? "").utf8),
                                              timeout: .seconds(30), on: group.next())
        return (reply.status, try? JSONValue.parse(reply.body))
    }

    /// Stops the process and starts another on the same data folder (a restart). The new one starts once
    /// the old one has exited: until then it holds the folder's lock, and a second server is refused.
    func restart() async throws {
        let (old, data, secret) = (process, data, secret)
        old.terminate()
        (process, syncURL) = try await offload {
            old.waitUntilExit()
            return try ServeProcess.serve(data: data, secret: secret)
        }
    }

    /// Ends the process, the loop and the data folder.
    func stop() {
        process.terminate()
        group.shutdown()
        try? FileManager.default.removeItem(atPath: data)
    }
}
