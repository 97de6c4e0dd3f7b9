import Foundation
import Testing
import TandemProtocol
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// A client id belongs to its user, against real `tandem serve` processes: another participant who names
/// it (a guest, a viewer) neither reads nor moves its owner's exactly-once progress, and never closes or
/// refuses the owner — before and after a restart. The room API's writes count per subject too.
@Suite("Client ids belong to their user (process)")
struct ClientIDOwnershipProcessTests {
    static let secret = "client-id-ownership"

    @Test func anotherUserNamingYourClientIDNeitherReadsNorMovesYourProgressNorShutsYouOut() async throws {
        let served = try await ServedProcess(secret: Self.secret)
        defer { served.stop() }
        func token(_ user: String, _ role: Role) -> String { served.token(user, role: role) }
        let alice = token("alice", .host), mallory = token("mallory", .guest), vera = token("vera", .viewer)
        func join(_ token: String, client: String = "ios-host") async throws -> (ProtocolClient, Welcome) {
            let peer = try await ProtocolClient.connect(served.syncURL, loop: served.group.next())
            try await peer.send(.hello(Hello(token: token, client: client)))
            guard case .welcome(let welcome)? = await peer.next(timeout: .seconds(30)) else {
                throw ServeProcessError("no welcome (closed with \(await peer.closeCode(timeout: .seconds(5)).map(String.init) ?? "nothing"))")
            }
            return (peer, welcome)
        }
        func write(_ peer: ProtocolClient, seq: Int64, value: Int) async throws -> ServerMessage? {
            try await peer.send(.patch(seq: seq, ops: [.set(JSONPointer(tokens: ["n"]), .number(Double(value)))]))
            return await peer.answer()
        }

        // Alice writes seq 1 and 2 as `ios-host`, and leaves.
        var (host, welcome) = try await join(alice)
        #expect(welcome.lastSeq == 0)
        #expect(try await write(host, seq: 1, value: 1) == .ack(seq: 1, rev: 1, duplicate: false))
        #expect(try await write(host, seq: 2, value: 2) == .ack(seq: 2, rev: 2, duplicate: false))
        await host.socket.close()

        // Mallory names the same client id: she sees none of Alice's progress, and her huge seq is hers alone.
        let (intruder, intruderWelcome) = try await join(mallory)
        #expect(intruderWelcome.lastSeq == 0 && !intruderWelcome.forgotten, "Alice's lastSeq is not Mallory's to read")
        #expect(intruderWelcome.you == SessionIdentity(user: "mallory", client: "ios-host", role: .guest))
        #expect(try await write(intruder, seq: 1_000_000, value: 3) == .ack(seq: 1_000_000, rev: 3, duplicate: false))
        // A viewer naming it is welcomed as itself, and still may not write.
        let (viewer, viewerWelcome) = try await join(vera)
        #expect(viewerWelcome.lastSeq == 0)
        if case .reject(5, let code, _)? = try await write(viewer, seq: 5, value: 9) {
            #expect(code == .forbidden)
        } else {
            Issue.record("a viewer's patch was not refused")
        }

        // Alice comes back while both are connected: welcomed (not refused), her progress as she left it, and
        // her next seqs applied — not acked as duplicates of Mallory's.
        (host, welcome) = try await join(alice)
        #expect(welcome.lastSeq == 2)
        #expect(Set(welcome.participants.map(\.peer)) == [Peer(user: "alice", client: "ios-host"), Peer(user: "mallory", client: "ios-host"),
                                                         Peer(user: "vera", client: "ios-host")], "three participants, one client id")
        #expect(try await write(host, seq: 3, value: 4) == .ack(seq: 3, rev: 4, duplicate: false))
        #expect(try await write(host, seq: 4, value: 5) == .ack(seq: 4, rev: 5, duplicate: false))
        #expect(try await write(host, seq: 4, value: 5) == .ack(seq: 4, rev: 5, duplicate: true), "Alice's own resend is still a duplicate")
        // Mallory was not closed by any of it: she sees Alice's patches as another participant's.
        var seen: [PatchEvent] = []
        while seen.count < 2, let message = await intruder.next(timeout: .seconds(30)) {
            if case .patch(let event) = message { seen.append(event) }
        }
        #expect(seen.map(\.author) == [Peer(user: "alice", client: "ios-host"), Peer(user: "alice", client: "ios-host")])
        #expect(seen.map(\.seq) == [3, 4])
        for peer in [host, intruder, viewer] { await peer.socket.close() }

        // Stored apart: after a restart each user's progress under the one client id is its own.
        try await served.restart()
        let (again, afterRestart) = try await join(alice)
        #expect(afterRestart.lastSeq == 4)
        let (intruderAgain, intruderAfterRestart) = try await join(mallory)
        #expect(intruderAfterRestart.lastSeq == 1_000_000)
        #expect(try await write(again, seq: 5, value: 6) == .ack(seq: 5, rev: 6, duplicate: false))
        for peer in [again, intruderAgain] { await peer.socket.close() }
    }

    @Test func theRoomAPIsWritesCountPerSubject() async throws {
        let served = try await ServedProcess(secret: Self.secret)
        defer { served.stop() }
        func call(_ method: String, _ path: String, as user: String, json: String? = nil) async throws -> JSONValue? {
            let reply = try await served.call(method, path, token: served.token(user, role: .host), json: json)
            #expect(reply.status == 200, "\(method) \(path): \(reply.status)")
            return reply.body
        }
        for user in ["alice", "bob", "alice"] {
            _ = try await call("POST", "/v1/rooms/lobby/patch", as: user, json: #"{"ops":[{"op":"set","path":"/by","value":"\#(user)"}]}"#)
        }
        let history = try await call("GET", "/v1/rooms/lobby/history", as: "alice")
        let patches = history?["patches"]?.arrayValue ?? []
        let authors = patches.map { "\($0["user"]?.stringValue ?? "?")/\($0["client"]?.stringValue ?? "?")#\(Int($0["seq"]?.doubleValue ?? 0))" }
        // Each write is its subject's (client id `http` within that user's): seqs rise per subject, and a room-wide
        // counter keeps a write still sequencing (in a cluster) known by its seq alone.
        #expect(authors == ["alice/http#1", "bob/http#2", "alice/http#3"])
    }
}
