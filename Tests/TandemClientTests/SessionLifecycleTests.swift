import Synchronization
import Testing
import TandemProtocol
import TandemTesting
@testable import TandemClient

/// The lifecycle running by itself: a scripted environment and a hand-driven clock drive a recording
/// target, then a real room on a real server.
@Suite struct SessionLifecycleTests {
    /// An environment whose events the test sends.
    final class ScriptedEnvironment: AppEnvironment {
        private let subscribers = Mutex<[AsyncStream<AppEnvironmentEvent>.Continuation]>([])
        func events() -> AsyncStream<AppEnvironmentEvent> {
            let (stream, continuation) = AsyncStream<AppEnvironmentEvent>.makeStream()
            subscribers.withLock { $0.append(continuation) }
            return stream
        }
        var listeners: Int { subscribers.withLock { $0.count } }
        func send(_ event: AppEnvironmentEvent) {
            for subscriber in subscribers.withLock({ $0 }) { subscriber.yield(event) }
        }
    }

    /// A target that records what it is asked to do.
    actor Recorder: LifecycleTarget {
        private(set) var done: [String] = []
        func suspend() { done.append("suspend") }
        func resume() { done.append("resume") }
        func reconnectNow() { done.append("reconnectNow") }
    }

    @Test func theGraceTheForegroundAndOneReconnectForAFlappingPath() async throws {
        let environment = ScriptedEnvironment()
        let clock = ManualClock()
        let recorder = Recorder()
        let reported = Mutex<[NetworkConditions]>([])
        let lifecycle = SessionLifecycle(session: recorder, environment: environment, clock: clock) { conditions in
            reported.withLock { $0.append(conditions) }
        }
        lifecycle.start()
        environment.send(.path(NetworkPath(interfaces: ["wifi"])))
        environment.send(.background)
        try #require(await eventually(timeout: .seconds(10)) { clock.sleeperCount == 1 }, "the grace is timed")
        clock.advance(by: .seconds(4))
        environment.send(.foreground)
        try #require(await eventually(timeout: .seconds(10)) { clock.sleeperCount == 0 })
        clock.advance(by: .seconds(10))
        #expect(await recorder.done.isEmpty, "a quick switch does nothing")

        environment.send(.background)
        try #require(await eventually(timeout: .seconds(10)) { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(5))
        try #require(await eventually(timeout: .seconds(10)) { await recorder.done == ["suspend"] })
        environment.send(.foreground)
        try #require(await eventually(timeout: .seconds(10)) { await recorder.done == ["suspend", "resume"] })

        for flap in 1...10 { environment.send(.path(NetworkPath(interfaces: [flap.isMultiple(of: 2) ? "wifi" : "cellular"], isExpensive: !flap.isMultiple(of: 2)))) }
        try #require(await eventually(timeout: .seconds(10)) { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(3))
        #expect(await eventually(timeout: .seconds(10)) { await recorder.done == ["suspend", "resume", "reconnectNow"] })
        #expect(await eventually(timeout: .seconds(10)) { reported.withLock { $0.last } == NetworkConditions() })
        #expect(reported.withLock { $0.contains(NetworkConditions(isExpensive: true)) })
        lifecycle.stop()
    }

    @Test @MainActor func aRoomSuspendsInTheBackgroundResumesAndShowsAnExpensivePath() async throws {
        let server = try TestServer()
        let environment = ScriptedEnvironment()
        let clock = ManualClock()
        let session = server.session(user: "alice", client: "a1")
        let room = try SharedRoom(session: session, initialState: ["tab": 0], presence: JSONValue.self,
                                  lifecycle: .environment(environment, LifecycleSettings(backgroundGrace: .seconds(5)), clock: clock))
        await room.start()
        #expect(await eventuallyOnMain { room.status.connection == .connected })
        try #require(await eventuallyOnMain(timeout: .seconds(10)) { environment.listeners == 1 })
        environment.send(.path(NetworkPath(interfaces: ["cellular"], isExpensive: true)))
        try #require(await eventuallyOnMain(timeout: .seconds(10)) { room.status.network.isExpensive })

        environment.send(.background)
        try #require(await eventuallyOnMain(timeout: .seconds(10)) { clock.sleeperCount == 1 })
        clock.advance(by: .seconds(5))
        #expect(await eventuallyOnMain(timeout: .seconds(10)) { room.status.connection == .offline })
        room.update { $0["tab"] = 2 }
        environment.send(.foreground)
        #expect(await eventuallyOnMain { room.status.connection == .connected })
        #expect(await room.settled(timeout: .seconds(20)))
        await room.stop()
        await server.shutdown()
    }

    @Test @MainActor func aManualRoomConnectsAndLinuxHasNoSystemEnvironment() async throws {
        let server = try TestServer()
        let session = server.session(user: "alice", client: "a1")
        let room = try SharedRoom(session: session, initialState: ["tab": 0], presence: JSONValue.self, lifecycle: .manual)
        await room.start()
        #expect(await eventuallyOnMain { room.status.connection == .connected })
        await room.stop()
        await server.shutdown()
        #expect(PlatformEnvironment.make() == nil, "Linux reports neither scenes nor network paths")
    }
}
