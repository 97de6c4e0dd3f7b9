import Testing
import TandemProtocol
import TandemWire
@testable import TandemServer

/// One allowance of changes per user and room, whatever the path: the socket's patches, on every connection of
/// the user, and the rooms API's writes all take from it.
@Suite struct WriteAllowanceTests {
    @Test func aUserGetsTheBurstThenTheRate() {
        let allowance = WriteAllowance(rate: 2, burst: 3)
        for _ in 0..<3 { #expect(allowance.take(room: "r", user: "u", now: 0) == nil) }
        #expect(allowance.take(room: "r", user: "u", now: 0) == 500_000_000)
        #expect(allowance.take(room: "r", user: "other", now: 0) == nil, "another user has an allowance of their own")
        #expect(allowance.take(room: "elsewhere", user: "u", now: 0) == nil, "and so has the same user in another room")
        #expect(allowance.take(room: "r", user: "u", now: 500_000_000) == nil)
        #expect(WriteAllowance(rate: 0, burst: 1).take(room: "r", user: "u", now: 0) == nil)
    }

    @Test func idleUsersAreForgotten() {
        let allowance = WriteAllowance(rate: 10, burst: 1, maxTracked: 2)
        for user in ["a", "b", "c"] { _ = allowance.take(room: "r", user: user, now: 0) }
        _ = allowance.take(room: "r", user: "d", now: 10_000_000_000)
        #expect(allowance.trackedCount <= 2)
    }

    @Test func theSocketAndTheRoomsAPIShareOneAllowancePerUser() async throws {
        var configuration = ServerConfiguration()
        configuration.rateLimit = 1
        configuration.rateBurst = 4
        let harness = ServerHarness(configuration: configuration)
        let routes = RoomRoutes(context: RoomRoutes.Context(
            tokens: harness.verifier, access: harness.access, writes: harness.writes, monotonicNow: { [monotonic = harness.monotonic] in monotonic.value },
            commits: harness.commits, registry: harness.registry, rooms: RoomSettings(configuration), configuration: configuration, shared: nil))
        func write(_ token: String) async -> HTTPResponse {
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Authorization": "Bearer \(token)"]
            headers.add(name: "Host", value: "h")
            let request = HTTPRequest(method: "POST", target: "/v1/rooms/lobby/patch", headers: headers,
                                      body: Array(#"{"ops":[{"op":"set","path":"/h","value":1}]}"#.utf8))
            return await withCheckedContinuation { continuation in
                routes.handle(request, responder: HTTPResponder(remoteAddress: nil) { continuation.resume(returning: $0) })
            }
        }
        let (session, sink, _) = await harness.join(user: "gus", client: "g1", role: .guest)
        for seq in Int64(1)...3 {
            session.send(.patch(seq: seq, ops: [.set(JSONPointer(tokens: ["s\(seq)"]), 1)]))
            guard case .ack? = await sink.nextMessage() else { Issue.record("patch \(seq) not acked"); return }
        }
        // Three of gus's four went over the socket: the rooms API has one left for him, and none after it.
        #expect(await write(harness.token(user: "gus", role: .guest)).status == 200)
        let refused = await write(harness.token(user: "gus", role: .guest))
        #expect(refused.status == 429 && refused.headers["Retry-After"] == "1")
        #expect(await write(harness.token(user: "alice", role: .guest)).status == 200, "another user's allowance is untouched")
        // Over the socket too: the next patch finds the allowance spent and the connection is closed with 4029.
        session.send(.patch(seq: 4, ops: [.set(JSONPointer(tokens: ["s4"]), 1)]))
        #expect(await sink.nextClose() == .rateLimited)
        harness.advanceMonotonic(by: 1_000_000_000)
        #expect(await write(harness.token(user: "gus", role: .guest)).status == 200)
    }
}

/// A history page is bounded in bytes as well as in patches, alone and in a cluster (one function builds both).
@Suite struct HistoryPageBoundTests {
    private func patch(_ rev: Int64, bytes: Int) -> StoredPatch {
        let value = String(repeating: "x", count: bytes - 40)
        return StoredPatch(room: "r", rev: rev, user: "u", client: "c", seq: rev, ops: Array(#"[{"op":"set","path":"/a","value":"\#(value)"}]"#.utf8), time: 0)
    }

    @Test func aPageEndsBeforeThePatchThatWouldPassTheByteBoundAndLeadsOn() throws {
        let page = SharedHistory(epoch: "e", rev: 5, oldestStoredRev: 1, patches: (1...5).map { patch($0, bytes: 400) })
        let response = RoomRoutes.historyPage(page, after: 0, maxBytes: 1_000)
        let json = try JSONValue.parse(response.body)
        #expect(json["patches"]?.arrayValue?.count == 2 && json["next"] == .number(2))
        // A patch larger than the bound still goes out, alone: the cursor always moves.
        let huge = RoomRoutes.historyPage(SharedHistory(epoch: "e", rev: 2, oldestStoredRev: 1, patches: [patch(1, bytes: 5_000), patch(2, bytes: 100)]),
                                          after: 0, maxBytes: 1_000)
        let single = try JSONValue.parse(huge.body)
        #expect(single["patches"]?.arrayValue?.count == 1 && single["next"] == .number(1))
        // Under the bound the whole page goes, and `next` is null at the head.
        let whole = try JSONValue.parse(RoomRoutes.historyPage(page, after: 0, maxBytes: 10_000).body)
        #expect(whole["patches"]?.arrayValue?.count == 5 && whole["next"] == .null)
    }
}

/// One token cannot fill a room: a user holds at most `maxConnectionsPerUser` connections in it.
@Suite struct ConnectionsPerUserTests {
    @Test func aUserPastTheCapIsRefusedWith4013AndOthersStillJoin() async throws {
        var configuration = ServerConfiguration()
        configuration.maxConnectionsPerUser = 2
        let harness = ServerHarness(configuration: configuration)
        for client in ["v1", "v2"] {
            let (_, _, welcome) = await harness.join(user: "vera", client: client, role: .viewer)
            #expect(welcome != nil)
        }
        let (third, sink) = harness.connect()
        third.send(.hello(Hello(token: harness.token(user: "vera", role: .viewer), client: "v3")))
        #expect(await sink.nextClose() == .roomFull)
        // The same client id again replaces its connection (no new one), and another user still joins.
        let (_, _, again) = await harness.join(user: "vera", client: "v2", role: .viewer)
        #expect(again != nil)
        let (_, _, host) = await harness.join(user: "alice", client: "a1")
        #expect(host != nil)
    }
}
