import Foundation
import Testing
import TandemTestSupport
import TandemProtocol
import TandemWire
@testable import TandemServer

/// One decision on every path: what an attacker who read the docs tries, against a real server on loopback.
@Suite struct AuthorizationTests {
    private static let room = "/v1/rooms/lobby"

    /// Every read and write path of the rooms API, and the socket, for one token: the statuses in order.
    private func everyPath(_ harness: InviteServer, token: String) async throws -> [Int] {
        [
            try await harness.call("GET", Self.room, token: token).status,
            try await harness.call("GET", Self.room + "/history", token: token).status,
            try await harness.call("GET", Self.room + "/state?rev=1", token: token).status,
            try await harness.call("POST", Self.room + "/patch", token: token, json: #"{"ops":[{"op":"set","path":"/late","value":1}]}"#).status,
        ]
    }

    @Test func aRemovedParticipantLosesEveryPathUntilAHostReadmitsThem() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        let gus = harness.token(user: "gus", role: .guest)
        #expect(try await harness.call("POST", Self.room + "/patch", token: gus, json: #"{"ops":[{"op":"set","path":"/a","value":1}]}"#).status == 200)
        #expect(try await everyPath(harness, token: gus) == [200, 200, 200, 200])

        let removed = try await harness.call("POST", Self.room + "/remove", token: host, json: #"{"user":"gus"}"#)
        #expect(removed.status == 200)
        #expect(try await everyPath(harness, token: gus) == [403, 403, 403, 403])
        let refusal = try await harness.call("GET", Self.room, token: gus)
        #expect(refusal.json?["error"] == .string("removed"))
        let socket = try await harness.connect(token: gus, client: "gus-1")
        #expect(await socket.closeCode(timeout: .seconds(30)) == 4003)
        // Nothing gus sent after the removal landed; a fresh token of his is refused as well.
        let state = try await harness.call("GET", Self.room, token: host)
        #expect(state.json?["state"] == ["a": 1, "late": 1] && state.json?["rev"] == 2)
        #expect(try await everyPath(harness, token: harness.token(user: "gus", role: .guest, ttl: 86_400)) == [403, 403, 403, 403])
        // Other rooms are not his removal's business.
        #expect(try await harness.call("GET", "/v1/rooms/attic", token: harness.token(user: "gus", room: "attic")).status == 404)

        harness.clock.add(7 * 86_400)
        #expect(try await everyPath(harness, token: harness.token(user: "gus", role: .guest)) == [403, 403, 403, 403])
        let laterHost = harness.token(user: "alice")
        let listed = try await harness.call("GET", Self.room + "/removed", token: laterHost)
        #expect(listed.json?["users"] == .array(["gus"]))
        #expect(try await harness.call("POST", Self.room + "/readmit", token: harness.token(user: "gus", role: .guest), json: #"{"user":"gus"}"#).status == 403)
        let readmitted = try await harness.call("POST", Self.room + "/readmit", token: laterHost, json: #"{"user":"gus"}"#)
        #expect(readmitted.status == 200 && readmitted.json?["readmitted"] == .bool(true))
        #expect(try await harness.call("GET", Self.room, token: harness.token(user: "gus", role: .guest)).status == 200)
        let again = try await harness.call("POST", Self.room + "/readmit", token: laterHost, json: #"{"user":"gus"}"#)
        #expect(again.status == 200 && again.json?["readmitted"] == .bool(false))
        await harness.shutdown()
    }

    @Test func removingAGuestClosesTheInvitationTheyCameThrough() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        let code = try await harness.createInvite(json: #"{"uses":5}"#)
        let other = try await harness.createInvite(json: #"{"uses":5}"#)
        let gus = try await harness.accept(code, name: "Gus")
        let gusUser = try #require(gus.json?["user"]?.stringValue)
        let bea = try await harness.accept(code, name: "Bea")
        let beaToken = try #require(bea.json?["token"]?.stringValue)

        let removed = try await harness.call("POST", Self.room + "/remove", token: host, json: #"{"user":"\#(gusUser)"}"#)
        #expect(removed.status == 200 && removed.json?["revoked"] == .array([.string(code)]))
        let back = try await harness.accept(code, name: "Gus again")
        #expect(back.status == 410 && back.json?["error"] == .string("revoked"))
        // Whoever came in before stays; another invitation of the room still admits.
        #expect(try await harness.call("GET", Self.room, token: beaToken).status == 404)
        #expect(try await harness.accept(other).status == 200)
        let list = try await harness.call("GET", "/v1/invites", token: host)
        #expect(list.json?["invites"]?.arrayValue?.map { $0["code"] } == [.string(other)])
        await harness.shutdown()
    }

    @Test func aBackendTokenNeverBecomesAParticipantsToken() async throws {
        let harness = try InviteServer()
        let backend = harness.server.tokens.mint(TokenClaims(sub: "backend", room: TokenClaims.anyRoom, role: .host, exp: harness.clock.value + 600))
        let code = try await harness.createInvite()
        for (method, path) in [("POST", "/v1/invites"), ("GET", "/v1/invites"), ("DELETE", "/v1/invites/\(code)")] {
            let answer = try await harness.call(method, path, token: backend, json: method == "POST" ? "{}" : nil)
            #expect(answer.status == 403 && answer.json?["error"] == .string("forbidden"), "\(method) \(path)")
        }
        #expect(try await harness.call("GET", "/v1/invites", token: harness.token(user: "alice")).json?["invites"]?.arrayValue?.count == 1)
        let socket = try await harness.connect(token: backend, client: "backend-1")
        #expect(await socket.closeCode(timeout: .seconds(30)) == 4003)
        // What a backend does do: every room's API, and moderation of a concrete room.
        #expect(try await everyPath(harness, token: backend) == [404, 404, 404, 200])
        #expect(try await harness.call("POST", Self.room + "/remove", token: backend, json: #"{"user":"gus"}"#).status == 200)
        #expect(try await harness.call("GET", Self.room + "/removed", token: backend).json?["users"] == .array(["gus"]))
        #expect(try await harness.call("POST", Self.room + "/readmit", token: backend, json: #"{"user":"gus"}"#).status == 200)
        // "*" names no room in a URL, even for a backend.
        let wildcard = try await harness.call("POST", "/v1/rooms/*/patch", token: backend, json: #"{"ops":[{"op":"set","path":"/a","value":1}]}"#)
        #expect(wildcard.status == 400 && wildcard.json?["error"] == .string("invalid_room"))
        await harness.shutdown()
    }

    /// Canonically equivalent spellings: `String` equality says they are one name, bytes say two. Only the
    /// NFC spelling names a room, on every path, so both rules agree.
    @Test(arguments: [("\u{2126}", "\u{3A9}"), ("cafe\u{301}", "caf\u{E9}"), ("\u{212B}", "\u{C5}")])
    func canonicallyEquivalentRoomNamesNeverMeetTheSameRoom(spellings: (String, String)) async throws {
        let (other, nfc) = spellings
        let clock = ManualNumber(1_800_000_000)
        let first = try InviteServer(clock: clock)
        func path(_ name: String) -> String { "/v1/rooms/" + name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        let nfcToken = first.token(user: "alice", room: nfc)
        let otherToken = first.token(user: "alice", room: other)
        let write = #"{"ops":[{"op":"set","path":"/k","value":1}]}"#
        #expect(try await first.call("POST", path(nfc) + "/patch", token: nfcToken, json: write).status == 200)
        // The other spelling in the URL is refused whatever the token; a token naming it is not a valid token.
        let byURL = try await first.call("GET", path(other), token: nfcToken)
        #expect(byURL.status == 400 && byURL.json?["error"] == .string("invalid_room"))
        #expect(try await first.call("POST", path(other) + "/patch", token: nfcToken, json: write).status == 400)
        let byToken = try await first.call("GET", path(nfc), token: otherToken)
        #expect(byToken.status == 401)
        #expect(try await first.call("GET", path(other), token: otherToken).status == 401)
        let socket = try await first.connect(token: otherToken, client: "c1")
        #expect(await socket.closeCode(timeout: .seconds(30)) == 4001)
        await first.shutdown(removeData: false)

        // After a restart the one spelling still reaches the room, the other still nothing.
        let second = try InviteServer(directory: first.directory, clock: clock)
        let read = try await second.call("GET", path(nfc), token: second.token(user: "alice", room: nfc))
        #expect(read.status == 200 && read.json?["state"] == ["k": 1] && read.json?["room"] == .string(nfc))
        #expect(try await second.call("GET", path(other), token: second.token(user: "alice", room: nfc)).status == 400)
        await second.shutdown()
    }

    @Test func theServersTokenRequirementsApplyToEveryPath() async throws {
        let harness = try InviteServer { $0.tokenRequirements = TokenRequirements(issuer: "https://auth.example") }
        let token = harness.token(user: "alice")
        let read = try await harness.call("GET", Self.room, token: token)
        #expect(read.status == 401 && read.json?["message"]?.stringValue?.contains("\"iss\"") == true)
        let socket = try await harness.connect(token: token, client: "a1")
        #expect(await socket.closeCode(timeout: .seconds(30)) == 4001)
        await harness.shutdown()
    }
}
