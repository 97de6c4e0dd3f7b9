import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct EventLoopGroupTests {
    @Test func nextHandsOutLoopsRoundRobin() throws {
        let group = try EventLoopGroup(threads: 3)
        defer { group.shutdown() }
        let picked = (0..<7).map { _ in group.next().index }
        #expect(picked == [0, 1, 2, 0, 1, 2, 0])
        #expect(group.loops.map(\.index) == [0, 1, 2])
    }

    @Test func eachLoopRunsOnItsOwnThread() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let first = group.loops[0], second = group.loops[1]
        let crossCheck = try await first.submit { (first.inEventLoop, second.inEventLoop) }
        #expect(crossCheck == (true, false))
    }

    @Test func shutdownClosesConnectionsJoinsThreadsAndRefusesLaterWork() async throws {
        let group = try EventLoopGroup(threads: 2)
        let (listener, serverSide) = try listenLogging(host: "127.0.0.1", group: group) { _ in RecordingHandler() }
        var clients: [RecordingHandler] = []
        for _ in 0..<4 {
            let handler = RecordingHandler()
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.next()) { _ in handler }
            clients.append(handler)
        }
        try await eventually("server accepted all") { serverSide.count == 4 }
        group.shutdown()
        // Joined: every handler was told exactly once, on its loop, before shutdown() returned. A connection
        // whose peer lived on a loop that stopped first may instead have seen that peer's FIN and closed cleanly.
        let handlers = clients + serverSide.all.map(\.handler)
        for handler in handlers {
            #expect(handler.snapshot.closed == 1)
            #expect(handler.snapshot.closeError == nil || handler.snapshot.closeError == .eventLoopShutdown)
        }
        #expect(handlers.filter { $0.snapshot.closeError == .eventLoopShutdown }.count >= 4)
        #expect(serverSide.all.allSatisfy { $0.connection.isClosed })
        let ran = Atomic<Bool>(false)
        let accepted = group.loops[0].execute { ran.store(true, ordering: .relaxed) }
        #expect(!accepted)
        await #expect(throws: IOError.eventLoopShutdown) { try await group.loops[1].submit { 1 } }
        await #expect(throws: IOError.eventLoopShutdown) {
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: group.loops[0]) { _ in RecordingHandler() }
        }
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        group.shutdown()  // idempotent
    }

    @Test func shutdownWithoutWaitingStopsTheLoopsEvenFromOneOfThem() async throws {
        let group = try EventLoopGroup(threads: 1)
        let loop = group.next()
        let handler = RecordingHandler()
        let (listener, _) = try listenLogging(host: "127.0.0.1", group: group) { _ in RecordingHandler() }
        _ = try await TCPConnection.connect(host: "127.0.0.1", port: listener.port, on: loop) { _ in handler }
        // On its own loop `shutdown()` would wait for itself; this returns at once.
        try await loop.submit { group.shutdownWithoutWaiting() }
        try await eventually("the loop stopped and closed its connections") { handler.snapshot.closed == 1 && !loop.execute {} }
        await #expect(throws: IOError.eventLoopShutdown) { try await loop.submit { 1 } }
        group.shutdown()  // nothing left to join
    }

    @Test func workRacingWithShutdownFailsCleanly() async throws {
        for _ in 0..<5 {
            let group = try EventLoopGroup(threads: 2)
            let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
            let port = listener.port
            let outcomes = await withTaskGroup(of: Bool.self) { attempts in
                for index in 0..<10 {
                    attempts.addTask {
                        do {
                            _ = try await TCPConnection.connect(host: "127.0.0.1", port: port, on: group.loops[index % 2]) { _ in
                                RecordingHandler()
                            }
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                try? await Task.sleep(for: .milliseconds(1))
                group.shutdown()
                var all: [Bool] = []
                for await outcome in attempts { all.append(outcome) }
                return all
            }
            // Every attempt finished one way or the other: none hangs, none crashes a loop.
            #expect(outcomes.count == 10)
        }
    }
}
