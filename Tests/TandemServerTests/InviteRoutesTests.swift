import Foundation
import Synchronization
import Testing
import TandemTestSupport
import TandemProtocol
import TandemWire
@testable import TandemServer

/// The invitation API driven without sockets: requests in, responses out of an `HTTPResponder`.
@Suite struct InviteRoutesTests {
    private func routes(_ harness: ServerHarness, invites: [StoredInvite] = []) -> InviteRoutes {
        let clock = harness.wallClock
        return InviteRoutes(context: InviteRoutes.Context(
            book: InviteBook(invites: invites, retention: 86_400), denials: harness.denials, throttle: AcceptThrottle(limits: .init()),
            creations: AcceptThrottle(limits: .init(perAddress: 30, global: .max)),
            tokens: harness.verifier, access: harness.access, commits: harness.commits, registry: harness.registry, metrics: harness.metrics,
            logger: .discarding, configuration: harness.configuration, now: { clock.value }, random: SecureRandom(),
            listening: ListeningAddress(scheme: "http", host: "h", port: 80)))
    }

    private func call(_ routes: InviteRoutes, _ method: String, _ path: String, token: String? = nil, json: String = "") async -> (HTTPResponse, JSONValue?) {
        var headers: HTTPHeaders = ["Host": "h", "Content-Type": "application/json"]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let request = HTTPRequest(method: method, target: path, headers: headers, body: Array(json.utf8))
        let response = await withCheckedContinuation { continuation in
            routes.handle(request, responder: HTTPResponder(remoteAddress: nil) { continuation.resume(returning: $0) })
        }
        return (response, try? JSONValue.parse(response.body))
    }

    @Test func removalClosesTheUsersSessionsAndRefusesTheirNextHello() async throws {
        let harness = ServerHarness()
        let routes = routes(harness)
        let (_, bob, welcome) = await harness.join(user: "bob", client: "b1", role: .guest)
        #expect(welcome != nil)
        let (_, carol, _) = await harness.join(user: "carol", client: "c1", role: .guest)
        let (response, json) = await call(routes, "POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: #"{"user":"bob"}"#)
        #expect(response.status == 200 && json?["closed"] == .number(1))
        #expect(await bob.nextClose() == .forbidden)
        #expect(await carol.nextMessage(ofType: "leave") != nil)
        #expect(!carol.isClosed)

        let (again, sink) = harness.connect()
        again.send(.hello(Hello(token: harness.token(user: "bob", role: .guest), client: "b2")))
        #expect(await sink.nextClose() == .forbidden)
        // The removal outlasts every token bob had: only a host lets him back.
        harness.wallClock.add(30 * 86_400)
        let (late, lateSink) = harness.connect()
        late.send(.hello(Hello(token: harness.token(user: "bob", role: .guest), client: "b3")))
        #expect(await lateSink.nextClose() == .forbidden)
        let (listed, removed) = await call(routes, "GET", "/v1/rooms/lobby/removed", token: harness.token(user: "alice"))
        #expect(listed.status == 200 && removed?["users"] == .array(["bob"]))
        let (readmit, answer) = await call(routes, "POST", "/v1/rooms/lobby/readmit", token: harness.token(user: "alice"), json: #"{"user":"bob"}"#)
        #expect(readmit.status == 200 && answer?["readmitted"] == .bool(true))
        let (_, _, readmitted) = await harness.join(user: "bob", client: "b4", role: .guest)
        #expect(readmitted != nil)
    }

    /// A stored invitation for every room (made before backend tokens were refused) mints nothing.
    @Test func anInvitationForEveryRoomNeverMintsAToken() async throws {
        let harness = ServerHarness()
        let stored = StoredInvite(code: "123456", room: TokenClaims.anyRoom, role: "guest", createdBy: "backend",
                                  createdAt: harness.wallClock.value, expiresAt: harness.wallClock.value + 600, usesLeft: 5)
        let routes = routes(harness, invites: [stored])
        let (response, json) = await call(routes, "POST", "/v1/invites/123456/accept", json: "{}")
        #expect(response.status == 410 && json?["error"] == .string("revoked") && json?["token"] == nil)
    }

    @Test func createAndAcceptAnswerFromTheResponder() async throws {
        let harness = ServerHarness()
        let routes = routes(harness)
        let (created, invite) = await call(routes, "POST", "/v1/invites", token: harness.token(user: "alice"), json: #"{"role":"viewer"}"#)
        #expect(created.status == 201)
        #expect(created.headers["Content-Type"] == "application/json")
        let code = try #require(invite?["code"]?.stringValue)
        #expect(invite?["url"] == .string("http://h:80/#invite=\(code)"), "the listening address, never the request's Host header")
        let (accepted, token) = await call(routes, "POST", "/v1/invites/\(code)/accept", json: "{}")
        #expect(accepted.status == 200)
        let claims = try harness.verifier.verify(try #require(token?["token"]?.stringValue))
        #expect(claims.role == .viewer && claims.name == nil && claims.sub.hasPrefix("guest-"))
        let (wrongType, _) = await call(routes, "POST", "/v1/invites/\(code)/accept", json: "[]")
        #expect(wrongType.status == 400)
    }

    @Test func aJoinStillLoadingItsRoomWhenTheUserIsRemovedIsRefused() async throws {
        let store = HeldLoadStore()
        let harness = ServerHarness(store: store)
        let routes = routes(harness)
        let (session, bob) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "bob", role: .guest), client: "b1")))
        try await eventually("the room load has begun", timeout: .seconds(30)) { store.loadStarted.load(ordering: .acquiring) }
        let removal = Task { await call(routes, "POST", "/v1/rooms/lobby/remove", token: harness.token(user: "alice"), json: #"{"user":"bob"}"#) }
        try await eventually("bob is denied", timeout: .seconds(30)) { harness.denials.deniedUntil("bob", in: "lobby", now: harness.wallClock.value) != nil }
        store.release.signal()
        #expect(await bob.nextClose(timeout: .seconds(30)) == .forbidden)
        let (response, json) = await removal.value
        #expect(response.status == 200 && json?["closed"] == .number(0))
    }
}
