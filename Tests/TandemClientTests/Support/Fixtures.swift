import TandemProtocol
@testable import TandemClient

/// Shorthands for building documents, ops and server messages in tests.
enum Fixtures {
    static func path(_ text: String) -> JSONPointer {
        // Test paths are literals; a typo should fail loudly.
        guard let pointer = try? JSONPointer(parsing: text) else { fatalError("bad test path \(text)") }
        return pointer
    }

    static func set(_ text: String, _ value: JSONValue) -> PatchOp { .set(path(text), value) }

    static func remove(_ text: String) -> PatchOp { .remove(path(text)) }

    static func welcome(
        epoch: String = "e1", rev: Int64 = 0, state: JSONValue? = .emptyObject, replay: [PatchEvent] = [], lastSeq: Int64 = 0,
        client: String = "me", role: Role = .host, limits: SessionLimits = SessionLimits()
    ) -> ServerMessage {
        .welcome(Welcome(
            epoch: epoch, rev: rev, sync: state.map { .state($0) } ?? .replay(replay), lastSeq: lastSeq,
            you: SessionIdentity(user: "u-\(client)", client: client, role: role), participants: [], limits: limits))
    }

    static func event(rev: Int64, client: String = "other", seq: Int64 = 1, _ ops: [PatchOp]) -> ServerMessage {
        .patch(PatchEvent(rev: rev, user: "u-\(client)", client: client, seq: seq, ops: ops))
    }

    /// An engine that has received a welcome with unlimited rate, ready to send.
    static func connectedEngine(
        configuration: SyncEngineConfiguration = SyncEngineConfiguration(), limits: SessionLimits = SessionLimits(rate: 0)
    ) -> SyncEngine {
        var engine = SyncEngine(clientID: "me", configuration: configuration)
        _ = engine.receive(welcome(limits: limits))
        return engine
    }

    static func seqs(_ messages: [ClientMessage]) -> [Int64] {
        messages.compactMap { if case .patch(let seq, _, _) = $0 { seq } else { nil } }
    }
}
