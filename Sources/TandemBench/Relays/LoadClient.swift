import TandemWire

/// One simulated participant of the relay benchmark. All its state lives on the load generator's single
/// event-loop thread (hence `@unchecked Sendable`: it is only touched there).
final class LoadClient: WebSocketHandler, @unchecked Sendable {
    // Strong: callbacks can arrive after the scenario let go of its session (late closes after an abort).
    let session: LoadSession
    /// Index in `session.clients`, written into every message so receivers can find the sender.
    let index: Int
    /// Position inside its room (the Tandem path it sets, `/cN`, keeps each room's document small).
    let member: Int
    let room: String
    let clientID: String
    let token: String
    var connection: WebSocketConnection?
    /// The last seq sent (Tandem seqs start at 1 and never repeat for a client id).
    var seq = 0
    /// Sent messages not yet received by every other member of the room.
    var outstanding = 0
    /// For each outstanding seq, how many members still have to receive it.
    var remaining: [Int: Int] = [:]
    /// Where a Tandem client stands, for `hello.resume`.
    var epoch = ""
    var rev: Int64 = 0
    /// The highest seq acked so far (acks must arrive once each, in seq order).
    var lastAckedSeq = 0

    init(session: LoadSession, index: Int, member: Int, room: String, clientID: String, token: String) {
        self.session = session
        self.index = index
        self.member = member
        self.room = room
        self.clientID = clientID
        self.token = token
    }

    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        session.receive(text, by: self)
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        session.receive(bytes, by: self)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {
        // A connection this client already replaced (resume storm) closing late is expected.
        guard connection === self.connection else { return }
        session.closed(code: code, reason: reason)
    }

    func webSocketIdleTimeoutFired(_ connection: WebSocketConnection) {}
}
