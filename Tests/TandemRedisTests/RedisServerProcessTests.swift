import Foundation
import Testing
import TandemTestSupport
import TandemWire

/// The tests' throwaway redis-server: a port another server holds must not pass for its own.
@Suite("Test redis-server process", .enabled(if: RedisServerProcess.isEnabled, "redis-server is not installed"))
struct RedisServerProcessTests {
    @Test func aServerOnAPortAnotherServerHoldsFailsInsteadOfPassingForIt() async throws {
        let first = try await RedisServerProcess.start()
        // Before: the second server exited at once ("Address already in use"), but the port accepted
        // connections (the first server's), so start() returned it, and its user shared the first one's data.
        let error = await #expect(throws: RedisServerProcessError.self) {
            let second = try await RedisServerProcess.start(port: first.port, timeout: .seconds(10))
            await second.stop()
        }
        if case .portTaken(let port, let log)? = error {
            #expect(port == first.port)
            #expect(log.contains("Address already in use"))
        } else {
            Issue.record("expected portTaken, got \(String(describing: error))")
        }
        await first.stop()
    }

    @Test func aRestartOnTheSameDirectoryComesUp() async throws {
        let first = try await RedisServerProcess.start()
        await first.stop(keepingData: true)
        // The log holds the first run's "Ready to accept connections" line; start() reads only the lines of the
        // new process (a wrong filter would miss its own line and time out), and checks the port accepts too.
        // A port of its own: the one just freed may be taken by another test's server meanwhile.
        let second = try await RedisServerProcess.start(directory: first.directory)
        #expect(LoopbackPort.isAccepting(second.port))
        await second.stop()
    }
}
