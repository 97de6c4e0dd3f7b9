import Testing
import TandemProtocol
@testable import TandemClient

/// Two rooms on a fresh server room see each other, whatever the order of their starts: the welcome's
/// participant list and the `join` that follows reach `others` on both sides (a real server, many fresh
/// rooms, since a lost event shows only in a few of them).
@Suite struct SharedRoomParticipantsTests {
    enum Start: String, CaseIterable { case oneAfterTheOther, together }

    @Test(arguments: Start.allCases)
    func twoRoomsOnAFreshRoomSeeEachOther(start: Start) async throws {
        let harness = try SessionTestServer.start()
        var missing: [String] = []
        for index in 0..<30 {
            let name = "fresh-\(start.rawValue)-\(index)"
            let hostToken = harness.token(user: "host", room: name), guestToken = harness.token(user: "guest", room: name, role: .guest)
            let (hostSession, _) = harness.session(user: "host", client: "h", token: { hostToken })
            let (guestSession, _) = harness.session(user: "guest", client: "g", token: { guestToken })
            let hostLog = StreamLog(hostSession.events), guestLog = StreamLog(guestSession.events)
            let (host, guest) = try await MainActor.run {
                (try SharedRoom(session: hostSession, initialState: RoomPage(), presence: RoomCursor.self),
                 try SharedRoom(session: guestSession, initialState: RoomPage(), presence: RoomCursor.self))
            }
            switch start {
            case .oneAfterTheOther:
                await host.start()
                await guest.start()
            case .together:
                async let first: Void = host.start()
                async let second: Void = guest.start()
                _ = await (first, second)
            }
            let seen = await eventually(timeout: .seconds(5)) {
                await MainActor.run { host.others.map(\.peer) == [Peer(user: "guest", client: "g")] && guest.others.map(\.peer) == [Peer(user: "host", client: "h")] }
            }
            if !seen {
                let (hostSees, guestSees) = await MainActor.run { (host.others.map(\.peer), guest.others.map(\.peer)) }
                func brief(_ events: [SyncSessionEvent]) -> String {
                    events.compactMap { event -> String? in
                        switch event {
                        case .synchronized(_, _, _, let participants): "sync\(participants.map(\.user))"
                        case .joined(let participant): "join(\(participant.user))"
                        case .left(let peer): "left(\(peer.user))"
                        case .connectionChanged(let state): "\(state)"
                        default: nil
                        }
                    }.joined(separator: ",")
                }
                missing.append("\(name): host sees \(hostSees) [\(brief(hostLog.all))], guest sees \(guestSees) [\(brief(guestLog.all))]")
            }
            await host.stop()
            await guest.stop()
        }
        #expect(missing.isEmpty, "\(missing.count) of 30 rooms: \(missing.joined(separator: "; "))")
        await harness.shutdown()
    }
}
