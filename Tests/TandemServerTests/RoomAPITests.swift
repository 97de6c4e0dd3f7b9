import Foundation
import Testing
import TandemProtocol
import TandemWire
@testable import TandemServer

/// The rooms API for backends over real HTTP: reading a room, its history and writing to it, with a
/// room's token or a backend's, and every refusal in the error shape of the invitation API.
@Suite struct RoomAPITests {
    private static let cart = #"{"ops":[{"op":"set","path":"/cart","value":["a","b"]}]}"#

    /// The next patch event `client` gets.
    private static func nextEvent(_ client: ProtocolClient) async -> PatchEvent? {
        while let message = await client.next(timeout: .seconds(30)) {
            if case .patch(let event) = message { return event }
        }
        return nil
    }

    @Test func aBackendWritesARoomItsParticipantsSeeAndReadsItBackWithItsHistory() async throws {
        let harness = try InviteServer()
        let backend = harness.token(user: "backend", room: TokenClaims.anyRoom)
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "a1")
        guard case .welcome? = await alice.next(timeout: .seconds(30)) else {
            Issue.record("not welcomed")
            await harness.shutdown()
            return
        }
        let written = try await harness.call("POST", "/v1/rooms/lobby/patch", token: backend, json: Self.cart)
        #expect(written.status == 200 && written.json == ["rev": 1], "\(written)")
        let event = await Self.nextEvent(alice)
        #expect(event?.user == "backend" && event?.client == Room.httpClient && event?.rev == 1)
        try await alice.send(.patch(seq: 1, ops: [.add(JSONPointer(tokens: ["cart", "-"]), "c")]))
        _ = await alice.next(timeout: .seconds(30))

        let room = try await harness.call("GET", "/v1/rooms/lobby", token: backend)
        #expect(room.status == 200)
        #expect(room.json?["rev"] == 2 && room.json?["room"] == "lobby" && room.json?["state"] == ["cart": ["a", "b", "c"]], "\(room)")
        #expect(room.json?["participants"]?.arrayValue?.map { $0["client"] } == ["a1"])
        let epoch = try #require(room.json?["epoch"]?.stringValue)

        let history = try await harness.call("GET", "/v1/rooms/lobby/history", token: backend)
        #expect(history.status == 200 && history.json?["epoch"] == .string(epoch) && history.json?["next"] == .null)
        let patches = history.json?["patches"]?.arrayValue ?? []
        #expect(patches.map { $0["rev"] } == [1, 2])
        #expect(patches.first?["user"] == "backend" && patches.first?["client"] == "http" && patches.first?["seq"] == 1)
        #expect(patches.first?["time"] == .number(Double(harness.clock.value * 1_000)))
        #expect(patches.last?["ops"] == [["op": "add", "path": "/cart/-", "value": "c"]])
        // Paged: one at a time, `next` names where the next page starts.
        let first = try await harness.call("GET", "/v1/rooms/lobby/history?after=0&limit=1", token: backend)
        #expect(first.json?["patches"]?.arrayValue?.count == 1 && first.json?["next"] == 1)
        let second = try await harness.call("GET", "/v1/rooms/lobby/history?after=1&limit=1", token: backend)
        #expect(second.json?["patches"]?.arrayValue?.map { $0["rev"] } == [2] && second.json?["next"] == .null)
        await alice.socket.close()
        await harness.shutdown()
    }

    @Test func writesOverHTTPRacingAParticipantKeepOneOrder() async throws {
        let harness = try InviteServer()
        let backend = harness.token(user: "backend", room: TokenClaims.anyRoom)
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "a1")
        guard case .welcome? = await alice.next(timeout: .seconds(30)) else {
            Issue.record("not welcomed")
            await harness.shutdown()
            return
        }
        let writes = 10, patches = 20
        async let posted: [Int] = withTaskGroup(of: Int.self) { group in
            for index in 0..<writes {
                group.addTask {
                    let reply = try? await harness.call("POST", "/v1/rooms/lobby/patch", token: backend,
                                                        json: #"{"ops":[{"op":"set","path":"/h\#(index)","value":\#(index)}]}"#)
                    return reply?.status ?? 0
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        for seq in 1...patches { try await alice.send(.patch(seq: Int64(seq), ops: [.set(JSONPointer(tokens: ["a\(seq)"]), .number(Double(seq)))])) }
        #expect(await posted.allSatisfy { $0 == 200 })
        var revs: [Int64] = []
        while revs.count < writes + patches, let message = await alice.next(timeout: .seconds(30)) {
            switch message {
            case .ack(_, let rev, _, _): revs.append(rev)
            case .patch(let event): revs.append(event.rev)
            default: continue
            }
        }
        #expect(revs == Array(1...Int64(writes + patches)), "one order, no gap")
        let history = try await harness.call("GET", "/v1/rooms/lobby/history", token: backend)
        let seqs = history.json?["patches"]?.arrayValue?.filter { $0["client"] == "http" }.compactMap { $0["seq"] }
        #expect(seqs == (1...writes).map { .number(Double($0)) }, "the HTTP writes take the room's next seqs in order")
        await alice.socket.close()
        await harness.shutdown()
    }

    @Test func aRoomNobodyIsInIsReadFromStorage() async throws {
        let directory = SyncServerTests.temporaryDirectory()
        let harness = try InviteServer(directory: directory)
        let host = harness.token(user: "alice")
        #expect(try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: Self.cart).status == 200)
        await harness.shutdown(removeData: false)
        // A restarted server has not loaded the room: the read comes from storage and loads nothing.
        let restarted = try InviteServer(directory: directory)
        let room = try await restarted.call("GET", "/v1/rooms/lobby", token: restarted.token(user: "alice", role: .viewer))
        #expect(room.status == 200 && room.json?["rev"] == 1 && room.json?["state"] == ["cart": ["a", "b"]] && room.json?["participants"] == [])
        #expect(restarted.server.registry.loadedRoom("lobby") == nil)
        let history = try await restarted.call("GET", "/v1/rooms/lobby/history?after=0", token: restarted.token(user: "alice"))
        #expect(history.json?["patches"]?.arrayValue?.count == 1)
        let unknown = try await restarted.call("GET", "/v1/rooms/nowhere", token: restarted.token(user: "x", room: TokenClaims.anyRoom))
        #expect(unknown.status == 404 && unknown.json?["error"] == "unknown_room")
        await restarted.shutdown()
    }

    @Test func theStateAtARevIsRebuiltFromTheSnapshotAndThePatchesAfterIt() async throws {
        let harness = try InviteServer { $0.snapshotInterval = 3 }
        let host = harness.token(user: "alice")
        for index in 1...4 {
            let reply = try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: #"{"ops":[{"op":"set","path":"/n","value":\#(index)}]}"#)
            #expect(reply.json == ["rev": .number(Double(index))])
        }
        let atHead = try await harness.call("GET", "/v1/rooms/lobby/state?rev=4", token: host)
        #expect(atHead.status == 200 && atHead.json?["rev"] == 4 && atHead.json?["state"] == ["n": 4], "\(atHead)")
        let atSnapshot = try await harness.call("GET", "/v1/rooms/lobby/state?rev=3", token: host)
        #expect(atSnapshot.json?["state"] == ["n": 3])
        // Earlier states come from the earlier snapshots the room keeps (rev 0 here) and the patches after them.
        let early = try await harness.call("GET", "/v1/rooms/lobby/state?rev=2", token: host)
        #expect(early.json?["state"] == ["n": 2], "\(early)")
        #expect(try await harness.call("GET", "/v1/rooms/lobby/state?rev=0", token: host).json?["state"] == [:])
        let ahead = try await harness.call("GET", "/v1/rooms/lobby/state?rev=5", token: host)
        #expect(ahead.status == 404 && ahead.json?["error"] == "past_head")
        #expect(try await harness.call("GET", "/v1/rooms/lobby/state", token: host).status == 400)
        await harness.shutdown()
    }

    @Test func statesOlderThanTheRetainedHistoryAreGone() async throws {
        let harness = try InviteServer {
            $0.snapshotInterval = 2
            $0.historyWindow = 2
            $0.retainedRevisions = 3
        }
        let host = harness.token(user: "alice")
        for index in 1...8 {
            _ = try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: #"{"ops":[{"op":"set","path":"/n","value":\#(index)}]}"#)
        }
        // Rev 8 keeps revs 6…8 and the snapshot at rev 4 they are rebuilt from: rev 4 and later read back.
        for rev in 4...8 {
            let reply = try await harness.call("GET", "/v1/rooms/lobby/state?rev=\(rev)", token: host)
            #expect(reply.json?["state"] == ["n": .number(Double(rev))], "rev \(rev): \(reply)")
        }
        let gone = try await harness.call("GET", "/v1/rooms/lobby/state?rev=3", token: host)
        #expect(gone.status == 410 && gone.json?["error"] == "not_retained", "\(gone)")
        let history = try await harness.call("GET", "/v1/rooms/lobby/history?after=1", token: host)
        #expect(history.status == 410, "\(history)")
        #expect(try await harness.call("GET", "/v1/rooms/lobby/history?after=5", token: host).json?["patches"]?.arrayValue?.count == 3)
        await harness.shutdown()
    }

    @Test func ifRevMakesAWriteConditional() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        #expect(try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: Self.cart).json == ["rev": 1])
        let stale = try await harness.call("POST", "/v1/rooms/lobby/patch", token: host,
                                           json: #"{"ops":[{"op":"add","path":"/cart/-","value":"x"}],"ifRev":0}"#)
        #expect(stale.status == 409 && stale.json?["error"] == "conflict" && stale.json?["rev"] == 1, "\(stale)")
        let current = try await harness.call("POST", "/v1/rooms/lobby/patch", token: host,
                                             json: #"{"ops":[{"op":"add","path":"/cart/-","value":"x"}],"ifRev":1}"#)
        #expect(current.json == ["rev": 2])
        await harness.shutdown()
    }

    @Test func refusalsSayWhyAndChangeNothing() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        #expect(try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: Self.cart).status == 200)
        let cases: [(String, String, String?, String?, Int, String)] = [
            ("GET", "/v1/rooms/lobby", nil, nil, 401, "unauthorized"),
            ("GET", "/v1/rooms/lobby", "not-a-token", nil, 401, "unauthorized"),
            // Another room's token: refused before the room is looked up, whether it exists or not.
            ("GET", "/v1/rooms/lobby", harness.token(user: "eve", room: "other"), nil, 403, "forbidden"),
            ("GET", "/v1/rooms/nowhere", harness.token(user: "eve", room: "other"), nil, 403, "forbidden"),
            ("POST", "/v1/rooms/lobby/patch", harness.token(user: "vera", role: .viewer), Self.cart, 403, "forbidden"),
            ("POST", "/v1/rooms/lobby/patch", host, #"{"ops":[{"op":"jump","path":"/a"}]}"#, 400, "invalid_op"),
            ("POST", "/v1/rooms/lobby/patch", host, #"{"ops":[{"op":"test","path":"/cart/0","value":"z"}]}"#, 422, "test_failed"),
            ("POST", "/v1/rooms/lobby/patch", host, #"{"ops":[{"op":"replace","path":"/missing","value":1}]}"#, 422, "path_not_found"),
            ("POST", "/v1/rooms/lobby/patch", host, #"{"op":"set"}"#, 400, "invalid_field"),
            ("POST", "/v1/rooms/lobby/patch", host, #"{"ops":[],"extra":1}"#, 400, "invalid_field"),
            ("POST", "/v1/rooms/lobby/patch", host, "{", 400, "bad_json"),
            ("DELETE", "/v1/rooms/lobby/history", host, nil, 405, "method_not_allowed"),
            ("GET", "/v1/rooms/lobby/history?limit=0", host, nil, 400, "invalid_field"),
            ("GET", "/v1/rooms/lobby/history?after=x", host, nil, 400, "invalid_field"),
        ]
        for (method, path, token, json, status, code) in cases {
            let reply = try await harness.call(method, path, token: token, json: json)
            #expect(reply.status == status && reply.json?["error"] == .string(code), "\(method) \(path) \(json ?? ""): \(reply)")
            #expect(reply.json?["message"]?.stringValue?.isEmpty == false)
        }
        let big = #"{"ops":[{"op":"set","path":"/a","value":""# + String(repeating: "x", count: 70_000) + #""}]}"#
        let tooLarge = try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: big)
        #expect(tooLarge.status == 413 && tooLarge.json?["error"] == "body_too_large", "a write is at most a patch message: \(tooLarge)")
        let room = try await harness.call("GET", "/v1/rooms/lobby", token: host)
        #expect(room.json?["rev"] == 1 && room.json?["state"] == ["cart": ["a", "b"]], "nothing refused was applied")
        await harness.shutdown()
    }

    @Test func aWriteOverTheDocumentLimitIsTheProtocolsTooLarge() async throws {
        let harness = try InviteServer { $0.maxDocumentBytes = 64 }
        let reply = try await harness.call("POST", "/v1/rooms/lobby/patch", token: harness.token(user: "alice"),
                                           json: #"{"ops":[{"op":"set","path":"/a","value":""# + String(repeating: "x", count: 100) + #""}]}"#)
        #expect(reply.status == 413 && reply.json?["error"] == "too_large", "\(reply)")
        await harness.shutdown()
    }

    @Test func aDeletedRoomClosesItsConnectionsAndComesBackAsANewRoom() async throws {
        let directory = SyncServerTests.temporaryDirectory()
        let harness = try InviteServer(directory: directory)
        let host = harness.token(user: "alice")
        #expect(try await harness.call("POST", "/v1/rooms/lobby/patch", token: host, json: Self.cart).status == 200)
        let bob = try await harness.connect(token: harness.token(user: "bob", role: .guest), client: "b1")
        guard case .welcome(let before)? = await bob.next(timeout: .seconds(30)) else {
            Issue.record("bob not welcomed")
            await harness.shutdown()
            return
        }
        // A guest may not delete the room; a stranger's room cannot be probed.
        #expect(try await harness.call("DELETE", "/v1/rooms/lobby", token: harness.token(user: "bob", role: .guest)).status == 403)
        #expect(try await harness.call("DELETE", "/v1/rooms/nowhere", token: harness.token(user: "x", room: TokenClaims.anyRoom)).status == 404)

        let deleted = try await harness.call("DELETE", "/v1/rooms/lobby", token: host)
        #expect(deleted.status == 200 && deleted.json == ["room": "lobby", "deleted": true], "\(deleted)")
        var error: ServerMessage?
        while let message = await bob.next(timeout: .seconds(30)) {
            if case .error = message { error = message; break }
        }
        guard case .error(.roomDeleted, _)? = error else {
            Issue.record("no room_deleted error: \(String(describing: error))")
            await harness.shutdown()
            return
        }
        #expect(await bob.closeCode(timeout: .seconds(30)) == 4004)
        #expect(CloseCode.roomDeleted.reconnectPolicy == .stop)
        #expect(try await harness.call("GET", "/v1/rooms/lobby", token: host).status == 404)
        await harness.shutdown(removeData: false)

        // Gone across a restart too; whoever joins next finds a new room in a new epoch.
        let restarted = try InviteServer(directory: directory)
        #expect(try await restarted.call("GET", "/v1/rooms/lobby", token: restarted.token(user: "alice")).status == 404)
        let carol = try await restarted.connect(token: restarted.token(user: "carol"), client: "c1")
        guard case .welcome(let after)? = await carol.next(timeout: .seconds(30)) else {
            Issue.record("carol not welcomed")
            await restarted.shutdown()
            return
        }
        #expect(after.rev == 0 && after.epoch != before.epoch)
        if case .state(let state) = after.sync { #expect(state == [:]) } else { Issue.record("a new room sends its state") }
        await carol.socket.close()
        await restarted.shutdown()
    }

    @Test func aBackendTokenAndTheHTTPClientIdCannotJoinOverTheSyncEndpoint() async throws {
        let harness = try InviteServer()
        let backend = try await harness.connect(token: harness.token(user: "backend", room: TokenClaims.anyRoom), client: "b1")
        guard case .error(.forbidden, let message)? = await backend.next(timeout: .seconds(30)) else {
            Issue.record("a backend token joined")
            await harness.shutdown()
            return
        }
        #expect(message.contains("HTTP API"))
        let impostor = try await harness.connect(token: harness.token(user: "alice"), client: Room.httpClient)
        guard case .error(.badMessage, _)? = await impostor.next(timeout: .seconds(30)) else {
            Issue.record("client id http joined")
            await harness.shutdown()
            return
        }
        await harness.shutdown()
    }
}
