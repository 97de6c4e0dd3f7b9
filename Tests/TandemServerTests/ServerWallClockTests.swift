import Foundation
import Testing
import TandemProtocol
@testable import TandemServer

/// The server's one injected wall clock decides token expiry and the time stored with each patch.
@Suite struct ServerWallClockTests {
    @Test func tokensAndStoredPatchTimesFollowTheInjectedClock() async throws {
        // 2001: a token valid for ten minutes from then expired long ago by the machine's clock.
        let harness = try InviteServer(clock: ManualNumber(1_000_000_000))
        let alice = try await harness.connect(token: harness.token(user: "alice"), client: "a1")
        guard case .welcome? = await alice.next(timeout: .seconds(30)) else {
            Issue.record("a token valid by the injected clock was refused")
            await harness.shutdown()
            return
        }
        try await alice.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/n"), .number(1))]))
        #expect(await alice.next(timeout: .seconds(30)) == .ack(seq: 1, rev: 1, duplicate: false))
        await alice.socket.close()
        await harness.shutdown(removeData: false)
        defer { try? FileManager.default.removeItem(atPath: harness.directory) }

        let store = try JournaledRoomStore(databasePath: harness.directory + "/tandem.sqlite", journalFolder: harness.directory + "/journal")
        defer { store.close() }
        #expect(try store.patches(room: "lobby", after: 0, limit: 10).map(\.time) == [1_000_000_000_000])
    }
}
