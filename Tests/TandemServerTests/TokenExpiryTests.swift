import Testing
import TandemProtocol
@testable import TandemServer

/// A token's `exp` holds on an open connection too: the server closes it with 4010 unless a `refresh` brought a
/// fresh token of the same user, room and role. Time is the harness's: a wall clock and timers moved by hand.
@Suite struct TokenExpiryTests {
    /// Moves the wall clock and the timers together.
    private func pass(_ seconds: Int64, _ harness: ServerHarness) {
        harness.wallClock.add(seconds)
        harness.scheduler.advance(by: .seconds(seconds))
    }

    @Test func anOpenConnectionIsClosedWith4010WhenItsTokenExpires() async throws {
        let harness = ServerHarness()
        let (session, sink) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "alice", ttl: 10), client: "a1")))
        guard case .welcome? = await sink.nextMessage() else { Issue.record("no welcome"); return }
        pass(9, harness)
        session.send(.patch(seq: 1, ops: [.set(JSONPointer(tokens: ["a"]), 1)]))
        guard case .ack? = await sink.nextMessage() else { Issue.record("no ack before exp"); return }
        #expect(!sink.isClosed)
        pass(1, harness)
        guard case .closed(let code, .error(let error, _)?)? = await sink.next() else { Issue.record("not closed at exp"); return }
        #expect(code == .tokenExpired && error == .tokenExpired)
        // Nothing sent after the close reaches the room.
        session.send(.patch(seq: 2, ops: [.set(JSONPointer(tokens: ["b"]), 1)]))
        let (_, _, observer) = await harness.join(user: "bob", client: "b1")
        #expect(observer?.sync == .state(["a": 1]))
        #expect(CloseCode.tokenExpired.reconnectPolicy == .resumeWithFreshToken)
    }

    @Test func aRefreshKeepsTheConnectionOpenUntilTheNewExpiry() async throws {
        let harness = ServerHarness()
        let (session, sink) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "alice", ttl: 10), client: "a1")))
        guard case .welcome? = await sink.nextMessage() else { Issue.record("no welcome"); return }
        pass(5, harness)
        session.send(.refresh(token: harness.token(user: "alice", ttl: 20)))
        pass(10, harness)
        session.send(.patch(seq: 1, ops: [.set(JSONPointer(tokens: ["a"]), 1)]))
        guard case .ack? = await sink.nextMessage() else { Issue.record("closed at the first token's exp"); return }
        #expect(!sink.isClosed)
        pass(10, harness)
        #expect(await sink.nextClose() == .tokenExpired)
    }

    @Test func aRefreshAfterTheExpiryDoesNotReviveTheConnection() async throws {
        let harness = ServerHarness()
        let (session, sink) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "alice", ttl: 10), client: "a1")))
        guard case .welcome? = await sink.nextMessage() else { Issue.record("no welcome"); return }
        // The wall clock passed exp; the timer has not fired yet.
        harness.wallClock.add(10)
        session.send(.refresh(token: harness.token(user: "alice", ttl: 60)))
        #expect(await sink.nextClose() == .tokenExpired)
    }

    @Test(arguments: ["another user", "another room", "another role", "expired", "forged"])
    func aRefreshThatCannotReplaceTheTokenCloses(kind: String) async throws {
        let harness = ServerHarness()
        let (session, sink) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "alice", role: .guest), client: "a1")))
        guard case .welcome? = await sink.nextMessage() else { Issue.record("no welcome"); return }
        let token = switch kind {
        case "another user": harness.token(user: "mallory", role: .guest)
        case "another room": harness.token(user: "alice", room: "attic", role: .guest)
        case "another role": harness.token(user: "alice", role: .host)
        case "expired": harness.token(user: "alice", role: .guest, ttl: 0)
        default: "x.y.z"
        }
        session.send(.refresh(token: token))
        #expect(await sink.nextClose() == .badToken, "\(kind)")
    }

    @Test func aRemovedUsersRefreshIsRefused() async throws {
        let harness = ServerHarness()
        let (session, sink) = harness.connect()
        session.send(.hello(Hello(token: harness.token(user: "gus", role: .guest), client: "g1")))
        guard case .welcome? = await sink.nextMessage() else { Issue.record("no welcome"); return }
        // Removed on another node, say: this connection is still open when the refresh comes.
        harness.denials.deny("gus", in: "lobby", until: DenyList.untilReadmitted)
        session.send(.refresh(token: harness.token(user: "gus", role: .guest)))
        #expect(await sink.nextClose() == .forbidden)
    }
}
