import Foundation
import Testing
import TandemTestSupport
import TandemProtocol
import TandemWire
@testable import TandemServer

@Suite struct InviteAPITests {
    @Test func aGuestJoinsThroughAnAcceptedInvitation() async throws {
        let harness = try InviteServer()
        let created = try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice"), json: #"{"role":"guest","ttl":600,"uses":1}"#,
                                             headers: [("Host", "cobrowse.test:8080")])
        #expect(created.status == 201)
        let code = try #require(created.json?["code"]?.stringValue)
        #expect(InvitationCode.isWellFormed(code) && code.count == 6)
        #expect(created.json?["room"] == .string("lobby"))
        #expect(created.json?["role"] == .string("guest"))
        #expect(created.json?["expiresAt"] == .number(Double(harness.clock.value + 600)))
        // Without --public-url the link names the address the server listens on, never the Host header a request chose.
        #expect(created.json?["url"] == .string("\(harness.server.baseURL)/#invite=\(code)"))

        let accepted = try await harness.accept(code, name: "Bob")
        #expect(accepted.status == 200)
        let token = try #require(accepted.json?["token"]?.stringValue)
        let claims = try harness.server.tokens.verify(token)
        #expect(claims.room == "lobby" && claims.role == .guest && claims.name == "Bob")
        #expect(claims.exp == harness.clock.value + 3600)
        #expect(accepted.json?["user"] == .string(claims.sub))

        let guest = try await harness.connect(token: token, client: "bob-1")
        guard case .welcome(let welcome)? = await guest.next(timeout: .seconds(30)) else {
            Issue.record("no welcome")
            return
        }
        #expect(welcome.you.role == .guest && welcome.you.user == claims.sub)
        #expect(harness.server.metrics.invitesCreated.value == 1 && harness.server.metrics.invitesAccepted.value == 1)
        await guest.socket.close()
        await harness.shutdown()
    }

    @Test func anInvitationIsUsedUpAfterItsUses() async throws {
        let harness = try InviteServer()
        let single = try await harness.createInvite()
        #expect(try await harness.accept(single).status == 200)
        let second = try await harness.accept(single)
        #expect(second.status == 410)
        #expect(second.json?["error"] == .string("used_up"))
        #expect(second.json?["message"]?.stringValue?.isEmpty == false)

        let double = try await harness.createInvite(json: #"{"uses":2}"#)
        #expect(try await harness.accept(double).status == 200)
        #expect(try await harness.accept(double).status == 200)
        #expect(try await harness.accept(double).status == 410)
        #expect(harness.server.metrics.inviteFailures.value("used_up") == 2)
        await harness.shutdown()
    }

    @Test func anInvitationExpiresOnTheInjectedClock() async throws {
        let harness = try InviteServer()
        let code = try await harness.createInvite(json: #"{"ttl":60}"#)
        harness.clock.add(59)
        let live = try await harness.call("GET", "/v1/invites", token: harness.token(user: "alice"))
        #expect(live.json?["invites"]?.arrayValue?.count == 1)
        harness.clock.add(1)
        // A code is forgotten when it expires: it no longer takes a place in the code space.
        let late = try await harness.accept(code)
        #expect(late.status == 404 && late.json?["error"] == .string("unknown_code"))
        let listed = try await harness.call("GET", "/v1/invites", token: harness.token(user: "alice"))
        #expect(listed.json?["invites"] == .array([]))
        await harness.shutdown()
    }

    @Test func onlyAHostWithAValidTokenMayCreate() async throws {
        let harness = try InviteServer()
        for role in [Role.guest, .viewer] {
            let reply = try await harness.call("POST", "/v1/invites", token: harness.token(user: "g", role: role), json: "{}")
            #expect(reply.status == 403)
            #expect(reply.json?["error"] == .string("forbidden"))
        }
        let missing = try await harness.call("POST", "/v1/invites", json: "{}")
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == "Bearer")
        let forged = try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice") + "x", json: "{}")
        #expect(forged.status == 401)
        let expired = try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice", ttl: -1), json: "{}")
        #expect(expired.status == 401)
        let listAsGuest = try await harness.call("GET", "/v1/invites", token: harness.token(user: "g", role: .guest))
        #expect(listAsGuest.status == 403)
        let hostAsRole = try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice"), json: #"{"role":"host"}"#)
        #expect(hostAsRole.status == 400)
        #expect(harness.server.metrics.invitesCreated.value == 0)
        await harness.shutdown()
    }

    @Test func aRevokedInvitationIsGoneAndTheListShowsOnlyLiveCodesOfTheRoom() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        let kept = try await harness.createInvite(json: #"{"role":"viewer","ttl":900,"uses":3}"#)
        let revoked = try await harness.createInvite()
        let otherRoom = try await harness.call("POST", "/v1/invites", token: harness.token(user: "carol", room: "attic"), json: "{}")
        let otherCode = try #require(otherRoom.json?["code"]?.stringValue)

        #expect(try await harness.call("DELETE", "/v1/invites/\(otherCode)", token: host).status == 404)
        let revoke = try await harness.call("DELETE", "/v1/invites/\(revoked)", token: host)
        #expect(revoke.status == 200)
        #expect(try await harness.call("DELETE", "/v1/invites/\(revoked)", token: host).status == 410)
        #expect(try await harness.call("DELETE", "/v1/invites/999999x", token: host).status == 404)
        let accept = try await harness.accept(revoked)
        #expect(accept.status == 410 && accept.json?["error"] == .string("revoked"))

        let list = try await harness.call("GET", "/v1/invites", token: host)
        #expect(list.status == 200)
        let invites = try #require(list.json?["invites"]?.arrayValue)
        #expect(invites.map { $0["code"] } == [.string(kept)])
        #expect(invites.first?["role"] == .string("viewer") && invites.first?["usesLeft"] == .number(3))
        #expect(invites.first?["createdBy"] == .string("alice"))
        await harness.shutdown()
    }

    @Test func codesAreUniqueAmongStoredInvitations() async throws {
        // 0x000F4240 = 1_000_000 → "000000"; the second invitation draws it again, then 0x00000007 → "000007".
        let random = ScriptedRandom([[0, 0x0F, 0x42, 0x40], [0, 0x0F, 0x42, 0x40], [0, 0, 0, 7]])
        let harness = try InviteServer(random: random)
        #expect(try await harness.createInvite() == "000000")
        #expect(try await harness.createInvite() == "000007")
        await harness.shutdown()
    }

    @Test func aRemovedParticipantIsClosedWith4003AndCannotRejoinWhileOthersStay() async throws {
        let harness = try InviteServer()
        let host = try await harness.connect(token: harness.token(user: "alice"), client: "alice-1")
        guard case .welcome? = await host.next(timeout: .seconds(30)) else { Issue.record("host not welcomed"); return }
        let accepted = try await harness.accept(try await harness.createInvite())
        let bobToken = try #require(accepted.json?["token"]?.stringValue)
        let bobUser = try #require(accepted.json?["user"]?.stringValue)
        let bob = try await harness.connect(token: bobToken, client: "bob-1")
        guard case .welcome? = await bob.next(timeout: .seconds(30)) else { Issue.record("bob not welcomed"); return }
        let carol = try await harness.connect(token: harness.token(user: "carol", role: .guest), client: "carol-1")
        guard case .welcome? = await carol.next(timeout: .seconds(30)) else { Issue.record("carol not welcomed"); return }

        let removed = try await harness.call("POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: #"{"user":"\#(bobUser)"}"#)
        #expect(removed.status == 200)
        #expect(removed.json?["closed"] == .number(1))
        #expect(removed.json?["revoked"] == .array([]), "a used-up invitation has nothing left to revoke")
        var bobError: ServerMessage?
        while let message = await bob.next(timeout: .seconds(30)) {
            if case .error = message { bobError = message; break }
        }
        if case .error(let code, _)? = bobError { #expect(code == .forbidden) } else { Issue.record("no error before close") }
        #expect(await bob.closeCode(timeout: .seconds(30)) == 4003)

        let again = try await harness.connect(token: bobToken, client: "bob-2")
        #expect(await again.closeCode(timeout: .seconds(30)) == 4003)

        // Carol saw bob leave and still works; the host too.
        var sawLeave = false
        while let message = await carol.next(timeout: .seconds(30)) {
            if case .leave(let peer) = message, peer.user == bobUser { sawLeave = true; break }
        }
        #expect(sawLeave)
        try await carol.send(.ping(t: 7))
        var pong = false
        while let message = await carol.next(timeout: .seconds(30)) {
            if case .pong = message { pong = true; break }
        }
        #expect(pong)
        #expect(harness.server.metrics.participantsRemoved.value == 1)

        let wrongRoom = try await harness.call("POST", "/v1/rooms/attic/remove", token: harness.token(user: "alice"), json: #"{"user":"carol"}"#)
        #expect(wrongRoom.status == 403)
        let asGuest = try await harness.call("POST", "/v1/rooms/lobby/remove", token: harness.token(user: "carol", role: .guest), json: #"{"user":"alice"}"#)
        #expect(asGuest.status == 403)
        let noUser = try await harness.call("POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: "{}")
        #expect(noUser.status == 400)
        await host.socket.close()
        await carol.socket.close()
        await harness.shutdown()
    }

    @Test func guessingIsThrottledPerAddressWithRetryAfter() async throws {
        let harness = try InviteServer()
        let code = try await harness.createInvite()
        let wrong = code == "000001" ? "000002" : "000001"
        for _ in 0..<10 {
            #expect(try await harness.accept(wrong).status == 404)
        }
        harness.clock.add(20)
        let throttled = try await harness.accept(code)
        #expect(throttled.status == 429)
        #expect(throttled.headers["Retry-After"] == "40")
        #expect(throttled.json?["error"] == .string("too_many_attempts"))
        #expect(harness.server.metrics.inviteFailures.value("unknown") == 10)
        #expect(harness.server.metrics.inviteFailures.value("throttled") == 1)
        let metrics = harness.server.metrics.prometheusText()
        #expect(metrics.contains(#"tandem_invite_failures_total{reason="unknown"} 10"#))
        harness.clock.add(40)
        #expect(try await harness.accept(code).status == 200)
        await harness.shutdown()
    }

    @Test func longerCodesAreMadeWhenConfiguredAndEveryLengthIsAccepted() async throws {
        let harness = try InviteServer { $0.inviteCodeLength = 12 }
        let code = try await harness.createInvite()
        #expect(code.count == 12 && InvitationCode.isWellFormed(code))
        #expect(try await harness.accept(code).status == 200)
        #expect(try await harness.accept("1234567890123").status == 404, "13 digits are no code")
        for length in InvitationCode.lengths {
            let made = InviteRoutes.code(length: length, random: SecureRandom())
            #expect(made.count == length && InvitationCode.isWellFormed(made))
        }
        // The page checks codes by the same rule: its pattern is made from it.
        #expect(PageSettings().invitationCodeLengths == InvitationCode.lengths)
        #expect(try #require(PageRoutes.assets["/page/app.mjs"]).text.contains("new RegExp('^[0-9]{' + SETTINGS.invitationCodeLengths[0] + ',' + SETTINGS.invitationCodeLengths[1] + '}$')"))
        await harness.shutdown()
    }

    @Test func creationIsLimitedPerHostAndPerRoom() async throws {
        let harness = try InviteServer { $0.inviteCreationsPerMinute = 3 }
        for _ in 0..<2 { _ = try await harness.createInvite(by: "alice") }
        _ = try await harness.createInvite(by: "bob")
        let alice = try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice"), json: "{}")
        #expect(alice.status == 429 && alice.json?["error"] == .string("too_many_invites") && alice.headers["Retry-After"] == "60")
        // Another host of the room shares the room's window; a host of another room does not.
        #expect(try await harness.call("POST", "/v1/invites", token: harness.token(user: "bob"), json: "{}").status == 429)
        #expect(try await harness.call("POST", "/v1/invites", token: harness.token(user: "carol", room: "attic"), json: "{}").status == 201)
        harness.clock.add(60)
        #expect(try await harness.call("POST", "/v1/invites", token: harness.token(user: "alice"), json: "{}").status == 201)
        await harness.shutdown()
    }

    /// Past the global limit an address that failed is held even with a valid code (a network that never failed
    /// still gets its try: `InviteRulesTests`).
    @Test func aGlobalLimitThrottlesEveryAddressThatFailed() async throws {
        let harness = try InviteServer { $0.failedAcceptsGlobal = 3 }
        let code = try await harness.createInvite()
        let wrong = code == "000001" ? "000002" : "000001"
        for _ in 0..<3 { #expect(try await harness.accept(wrong).status == 404) }
        #expect(try await harness.accept(code).status == 429)
        await harness.shutdown()
    }

    @Test func aRestartKeepsLiveInvitationsAndDenyEntries() async throws {
        let clock = ManualNumber(1_800_000_000)
        let first = try InviteServer(clock: clock)
        let code = try await first.createInvite(json: #"{"uses":2}"#)
        let spent = try await first.createInvite()
        #expect(try await first.accept(spent).status == 200)
        let removed = try await first.call("POST", "/v1/rooms/lobby/remove", token: first.token(user: "alice"), json: #"{"user":"mallory"}"#)
        #expect(removed.status == 200)
        await first.shutdown(removeData: false)

        let second = try InviteServer(directory: first.directory, clock: clock)
        let list = try await second.call("GET", "/v1/invites", token: second.token(user: "alice"))
        #expect(list.json?["invites"]?.arrayValue?.map { $0["code"] } == [.string(code)])
        #expect(try await second.accept(spent).status == 410)
        #expect(try await second.accept(code).status == 200)
        let mallory = try await second.connect(token: second.token(user: "mallory", role: .guest), client: "m-1")
        #expect(await mallory.closeCode(timeout: .seconds(30)) == 4003)
        // The removal outlasts every token mallory had, until a host readmits her; that lasts across a restart too.
        clock.add(30 * 86_400)
        let still = try await second.connect(token: second.token(user: "mallory", role: .guest), client: "m-2")
        #expect(await still.closeCode(timeout: .seconds(30)) == 4003)
        let readmitted = try await second.call("POST", "/v1/rooms/lobby/readmit", token: second.token(user: "alice"), json: #"{"user":"mallory"}"#)
        #expect(readmitted.status == 200 && readmitted.json?["readmitted"] == .bool(true))
        await second.shutdown(removeData: false)

        let third = try InviteServer(directory: first.directory, clock: clock)
        let later = try await third.connect(token: third.token(user: "mallory", role: .guest), client: "m-3")
        guard case .welcome? = await later.next(timeout: .seconds(30)) else { Issue.record("not admitted after the readmission"); return }
        await later.socket.close()
        await third.shutdown()
    }

    @Test func malformedRequestsGetTheRight4xxAndCreateNothing() async throws {
        let harness = try InviteServer()
        let host = harness.token(user: "alice")
        let cases: [(String, Int, String)] = [
            ("bad JSON", try await harness.call("POST", "/v1/invites", token: host, json: #"{"role":"#).status, "400"),
            ("not an object", try await harness.call("POST", "/v1/invites", token: host, json: "[1]").status, "400"),
            ("unknown field", try await harness.call("POST", "/v1/invites", token: host, json: #"{"rol":"guest"}"#).status, "400"),
            ("bad ttl", try await harness.call("POST", "/v1/invites", token: host, json: #"{"ttl":1.5}"#).status, "400"),
            ("bad uses", try await harness.call("POST", "/v1/invites", token: host, json: #"{"uses":0}"#).status, "400"),
            ("text body", try await harness.call("POST", "/v1/invites", token: host, json: "{}", headers: [("Content-Type", "text/plain")]).status, "415"),
            ("no content type", try await harness.call("POST", "/v1/invites", token: host, body: Array("{}".utf8)).status, "415"),
            ("too large", try await harness.call("POST", "/v1/invites", token: host, json: "{" + String(repeating: " ", count: 17 * 1024) + "}").status, "413"),
            ("chunked", try await harness.call("POST", "/v1/invites", token: host, json: "{}", headers: [("Transfer-Encoding", "chunked")]).status, "501"),
            ("unknown route", try await harness.call("POST", "/v1/invitations", token: host, json: "{}").status, "404"),
            ("unknown method", try await harness.call("PUT", "/v1/invites", token: host, json: "{}").status, "405"),
            ("accept via GET", try await harness.call("GET", "/v1/invites/123456/accept").status, "405"),
            ("bad name", try await harness.call("POST", "/v1/invites/123456/accept", json: #"{"name":7}"#).status, "400"),
        ]
        for (name, status, expected) in cases {
            #expect("\(status)" == expected, "\(name)")
        }
        let tooLarge = try await harness.call("POST", "/v1/invites", token: host, json: "{" + String(repeating: " ", count: 17 * 1024) + "}")
        #expect(tooLarge.json?["error"] == .string("body_too_large"))
        let unknown = try await harness.call("GET", "/nothing")
        #expect(unknown.status == 404 && unknown.json?["error"] == .string("not_found"))
        let method = try await harness.call("PUT", "/v1/invites", token: host, json: "{}")
        #expect(method.headers["Allow"] == "GET, POST")
        let list = try await harness.call("GET", "/v1/invites", token: host)
        #expect(list.json?["invites"] == .array([]))
        #expect(harness.server.metrics.invitesCreated.value == 0)
        // Bad bodies on accept are not guesses: they do not count towards the throttle.
        #expect(harness.server.metrics.inviteFailures.value("unknown") == 0)
        await harness.shutdown()
    }
}
