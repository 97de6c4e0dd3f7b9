import Testing
import TandemProtocol
@testable import TandemClient

/// `SharedRoom` + `SyncSession` against a real server, driven by seeded random sequences of what an app and
/// the world do — local changes, a backend's writes, another participant joining and leaving, suspend and
/// resume, network changes (`reconnectNow`: the link dropped and replaced), server restarts, and a change
/// after `stop()`; over the in-process transport also links dropped at once and outages — and checked after each step
/// against a simple model: once settled, the room's state is the server's, `others` is the server's
/// participant list without this session, every local change made while running is in the history exactly
/// once, and one made after `stop()` is refused, reported, and nowhere. An app's own listener of the
/// session's events runs throughout and must see every event too.
@Suite struct SharedRoomModelTests {
    struct Page: Codable, Equatable, Sendable {
        var marks: [String: Bool] = [:]
    }

    enum Step: CaseIterable {
        case localChange, backendWrite, otherJoins, otherLeaves, suspendAndResume, reconnectNow, serverRestarts
        /// Every link of the in-process transport dropped without a close frame.
        case linksDrop
        /// The server unreachable for a moment: links dropped, attempts failing, a local change made meanwhile.
        case outage
    }

    /// How the sessions reach the server.
    enum Link: CustomStringConvertible {
        case socket, inProcess
        var description: String { self == .socket ? "socket" : "in-process" }
        /// What can happen to the network on this link.
        var steps: [Step] {
            self == .socket ? Step.allCases.filter { $0 != .linksDrop && $0 != .outage } : Step.allCases
        }
    }

    /// A small deterministic generator (a 64-bit LCG), so a failing seed replays.
    struct Seeded {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    @Test(arguments: [Link.socket, .inProcess], [UInt64(1), 7, 42, 2_027, 31_337, 99_991])
    func randomSequencesKeepTheModel(link: Link, seed: UInt64) async throws {
        let harness = try RestartableServer()
        let roomName = "model-\(seed)"
        let transport = link == .inProcess ? harness.inProcessTransport() : nil
        let session = harness.session(user: "alice", client: "a1", room: roomName, transport: transport)
        let appLog = StreamLog(session.events)
        let room = try await MainActor.run { try SharedRoom(session: session, initialState: Page(), presence: JSONValue.self) }
        let backend = RoomsClient(baseURL: harness.baseURL, token: harness.token(user: "backend", room: "*"))
        await room.start()
        #expect(await eventuallyOnMain { room.status.connection == .connected })
        var random = Seeded(state: seed)
        var local: [String] = []
        var other: SyncSession?
        var failures: [String] = []
        for index in 0..<14 {
            let step = link.steps[random.next(link.steps.count)]
            switch step {
            case .localChange:
                let key = "a\(index)"
                await MainActor.run { room.update { $0.marks[key] = true } }
                local.append(key)
            case .backendWrite:
                _ = try await backend.write(roomName, ops: [.set(JSONPointer(tokens: ["marks", "b\(index)"]), true)])
            case .otherJoins where other == nil:
                let joining = harness.session(user: "bob", client: "b1", room: roomName, role: .guest, transport: transport)
                await joining.start()
                #expect(await eventually { await joining.state == .connected })
                other = joining
            case .otherLeaves:
                await other?.stop()
                other = nil
            case .otherJoins:
                continue
            case .suspendAndResume:
                await session.suspend()
                await MainActor.run { room.update { $0.marks["s\(index)"] = true } }
                local.append("s\(index)")
                await session.resume()
            case .reconnectNow:
                await session.reconnectNow()
            case .serverRestarts:
                try await harness.restart()
                #expect(await eventuallyOnMain { room.status.connection == .connected })
            case .linksDrop:
                transport?.dropConnections()
            case .outage:
                transport?.setReachable(false)
                transport?.dropConnections()
                await MainActor.run { room.update { $0.marks["o\(index)"] = true } }
                local.append("o\(index)")
                // The status tells the truth while the server cannot be reached: not connected, the change unsaved.
                let offline = await eventuallyOnMain {
                    if case .reconnecting = room.status.connection { !room.status.isSaved } else { false }
                }
                if !offline { failures.append("step \(index) (outage): the status shows \(await MainActor.run { room.status })") }
                transport?.setReachable(true)
            }
            // Settled: every change confirmed, the server's state and participants shown.
            guard await room.settled(timeout: .seconds(20)) else {
                failures.append("step \(index) (\(step)): not settled")
                break
            }
            let converged = await eventuallyOnMain(timeout: .seconds(10)) {
                guard let server = try? await backend.room(roomName) else { return false }
                let expectedOthers = Set(server.participants.map(\.peer)).subtracting([Peer(user: "alice", client: "a1")])
                let shown = JSONValue.object(room.state.marks.mapValues { .bool($0) })
                return shown == (server.state["marks"] ?? .emptyObject) && Set(room.others.map(\.peer)) == expectedOthers
            }
            if !converged {
                let server = try await backend.room(roomName)
                let (marks, others) = await MainActor.run { (room.state.marks, room.others.map(\.peer)) }
                failures.append("step \(index) (\(step)): shows \(marks) and \(others); the server has \(server.state) and \(server.participants.map(\.peer))")
                break
            }
        }
        // Exactly once: each local change is in the history once.
        let history = try await backend.history(roomName, limit: 1_000)
        let written = history.patches.filter { $0.user == "alice" }.flatMap(\.ops).compactMap { $0.path.tokens.last }
        for key in local where written.count(where: { $0 == key }) != 1 {
            failures.append("\(key) is in the history \(written.count(where: { $0 == key })) times")
        }
        // After stop(): refused, reported, and nowhere.
        await room.stop()
        await MainActor.run { room.update { $0.marks["late"] = true } }
        let (lateShown, lateError) = await MainActor.run { (room.state.marks["late"], room.lastError) }
        #expect(lateShown == nil)
        if case .changeRefused(.closed)? = lateError {} else { failures.append("a change after stop() was not reported: \(String(describing: lateError))") }
        #expect(try await backend.room(roomName).state["marks"]?["late"] == nil)
        // The app's own listener saw the session's events as well as the room did.
        #expect(appLog.all.contains { if case .synchronized = $0 { true } else { false } })
        #expect(appLog.isFinished)
        await other?.stop()
        await harness.shutdown()
        #expect(failures.isEmpty, "\(link), seed \(seed): \(failures.joined(separator: "; "))")
    }
}
