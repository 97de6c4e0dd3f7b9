import Foundation
import TandemProtocol
import TandemWire

/// The load generator's view of one scenario: its clients, rooms and counters, all driven from one event loop.
///
/// Every message carries `"<sender> <seq> <sent-at-ns> "` padded to the message size (for Tandem, inside the
/// value of a `set` op), so one-way latency is measured with one process's monotonic clock: the generator
/// both sends and receives. Mutable state is only touched on `loop` (hence `@unchecked Sendable`); tasks read it
/// through `loop.submit`.
final class LoadSession: @unchecked Sendable {
    let loop: EventLoop
    let server: RelayDeployment
    let roomSize: Int
    let messageSize: Int
    private(set) var clients: [LoadClient] = []

    // Counters (loop thread only).
    var delivered = 0
    var acks = 0
    var sent = 0
    var welcomes = 0
    var snapshots = 0
    var errors = 0
    var lastWelcomeNanos = 0
    var closes: [String: Int] = [:]
    /// Order and completeness of Tandem output (revs, acks, rejects), checked on every message.
    var audit = DeliveryAudit()
    var recordLatency = false
    var latencies: [Int] = []
    /// While true, every completed message is replaced by a new one (the closed loop).
    var closedLoop = false

    /// Creates `rooms × roomSize` clients; Tandem clients get tokens signed with `secret`.
    init(loop: EventLoop, server: RelayDeployment, tag: String, rooms: Int, roomSize: Int, messageSize: Int, secret: [UInt8]) {
        self.loop = loop
        self.server = server
        self.roomSize = roomSize
        self.messageSize = messageSize
        let expiry = Int64(Date().timeIntervalSince1970) + 86_400
        for room in 0..<rooms {
            let name = "\(tag)-r\(room)"
            for member in 0..<roomSize {
                let user = "u\(member)"
                let token = server.kind.speaksTandem
                    ? JWT.sign(TokenClaims(sub: user, room: name, role: .guest, exp: expiry)) { Digest.hmacSHA256(key: secret, message: $0) }
                    : ""
                clients.append(LoadClient(
                    session: self, index: clients.count, member: member, room: name, clientID: "\(name)-c\(member)", token: token))
            }
        }
    }

    // MARK: - Connecting

    /// Opens a connection for every client, at most `concurrency` handshakes at a time; Tandem clients send
    /// `hello` (with `resume` when asked) and this returns once every one got its `welcome`.
    func connectAll(concurrency: Int, resume: Bool, timeout: Duration = .seconds(120)) async throws {
        let speaksTandem = server.kind.speaksTandem
        let subprotocols = speaksTandem ? [TandemProtocol.subprotocol] : []
        let loop = loop
        let pending = clients
        let tls = server.clientTLS
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func start() {
                let client = pending[next]
                let url = server.url(room: client.room, member: client.member)
                next += 1
                group.addTask {
                    _ = try await WebSocketClient.connect(url: url, subprotocols: subprotocols, timeout: .seconds(60), tls: tls, on: loop) { connection in
                        client.connection = connection
                        if speaksTandem { connection.sendText(Self.hello(for: client, resume: resume)) }
                        return client
                    }
                }
            }
            while next < min(concurrency, pending.count) { start() }
            while try await group.next() != nil {
                if next < pending.count { start() }
            }
        }
        if speaksTandem {
            let expected = clients.count
            try await waitUntil(timeout: timeout, "welcomes") { $0.welcomes >= expected }
        }
    }

    /// A `hello` for `client`, resuming from where it stood when `resume` is set.
    static func hello(for client: LoadClient, resume: Bool) -> [UInt8] {
        let point = resume && !client.epoch.isEmpty ? ResumePoint(epoch: client.epoch, rev: client.rev) : nil
        return ClientMessage.hello(Hello(token: client.token, client: client.clientID, resume: point)).encoded()
    }

    /// Polls `condition` on the loop every 50 ms until it holds. Not more often: each poll wakes a
    /// cooperative-pool thread and the generator's loop, and at 5 ms those wake-ups preempted the server's event
    /// loop ≈ 270 times in 4 s of (b) (`perf record -e sched:sched_switch`), against ≈ 20 at 50 ms — the
    /// generator disturbing what it measures. Nothing timed depends on it: latencies and the resume storm's
    /// duration are stamped on the loop.
    /// - Throws: when `timeout` passes first, naming `what` and the session's counters.
    func waitUntil(timeout: Duration, _ what: String, _ condition: @escaping @Sendable (LoadSession) -> Bool) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            if try await loop.submit({ condition(self) }) { return }
            guard clock.now < deadline else {
                let summary = try await loop.submit { self.summary }
                throw RelayBenchError(description: "\(server.kind.rawValue): timed out waiting for \(what) (\(summary))")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The counters, for error messages.
    var summary: String {
        "sent \(sent), delivered \(delivered), acks \(acks), welcomes \(welcomes), errors \(errors), closes \(closes), order \(audit.summary)"
    }

    /// Drops every connection at once (no close handshake, so no TIME_WAIT piles up between scenarios).
    func abortAll() async throws {
        try await loop.submit {
            for client in self.clients { client.connection?.abort() }
        }
    }

    // MARK: - Sending (loop thread)

    /// Sends the next message of `client`, stamped with the current time.
    func send(from client: LoadClient) {
        guard let connection = client.connection else { return }
        client.seq += 1
        client.outstanding += 1
        client.remaining[client.seq] = roomSize - 1
        sent += 1
        connection.sendText(encode(from: client, seq: client.seq, at: LoadStatistics.nowNanoseconds()))
    }

    /// The message bytes: the stamp padded with `x` to `messageSize`, wrapped in a Tandem `patch` when needed.
    func encode(from client: LoadClient, seq: Int, at nanoseconds: Int) -> [UInt8] {
        let stamp = "\(client.index) \(seq) \(nanoseconds) "
        guard server.kind.speaksTandem else { return Self.padded(stamp, to: messageSize) }
        let prefix = #"{"type":"patch","seq":\#(seq),"ops":[{"op":"set","path":"/c\#(client.member)","value":""#
        let suffix = #""}]}"#
        return Array(prefix.utf8) + Self.padded(stamp, to: messageSize - prefix.utf8.count - suffix.utf8.count) + Array(suffix.utf8)
    }

    static func padded(_ text: String, to size: Int) -> [UInt8] {
        var bytes = Array(text.utf8)
        if bytes.count < size { bytes += repeatElement(UInt8(ascii: "x"), count: size - bytes.count) }
        return bytes
    }

    // MARK: - Receiving (loop thread)

    private static let ackPrefix = Array(#"{"type":"ack""#.utf8)
    private static let patchPrefix = Array(#"{"type":"patch""#.utf8)
    private static let welcomePrefix = Array(#"{"type":"welcome""#.utf8)
    private static let errorPrefix = Array(#"{"type":"error""#.utf8)
    private static let rejectPrefix = Array(#"{"type":"reject""#.utf8)
    private static let revKey = Array(#""rev":"#.utf8)
    private static let seqKey = Array(#""seq":"#.utf8)
    private static let duplicateTrue = Array(#""duplicate":true"#.utf8)
    private static let valueKey = Array(#""value":""#.utf8)

    func receive(_ text: [UInt8], by client: LoadClient) {
        guard server.kind.speaksTandem else {
            text.withUnsafeBytes { deliver($0, from: 0) }
            return
        }
        text.withUnsafeBytes { raw in
            if Self.starts(raw, with: Self.ackPrefix) {
                acks += 1
                noteAck(raw, of: client)
                noteRev(raw, of: client)
            } else if Self.starts(raw, with: Self.patchPrefix) {
                noteRev(raw, of: client)
                if let value = LoadStatistics.offset(after: Self.valueKey, in: raw) { deliver(raw, from: value) }
            } else if Self.starts(raw, with: Self.welcomePrefix) {
                welcome(text, for: client)
            } else if Self.starts(raw, with: Self.errorPrefix) {
                errors += 1
            } else if Self.starts(raw, with: Self.rejectPrefix) {
                audit.rejects += 1
            }
        }
    }

    private func noteRev(_ raw: UnsafeRawBufferPointer, of client: LoadClient) {
        guard var index = LoadStatistics.offset(after: Self.revKey, in: raw) else { return }
        client.rev = audit.observe(rev: Int64(LoadStatistics.parseInteger(raw, at: &index)), after: client.rev)
    }

    private func noteAck(_ raw: UnsafeRawBufferPointer, of client: LoadClient) {
        guard var index = LoadStatistics.offset(after: Self.seqKey, in: raw) else { return }
        let seq = LoadStatistics.parseInteger(raw, at: &index)
        let duplicate = LoadStatistics.offset(after: Self.duplicateTrue, in: raw) != nil
        client.lastAckedSeq = audit.observeAck(seq: seq, duplicate: duplicate, after: client.lastAckedSeq)
    }

    private func welcome(_ text: [UInt8], for client: LoadClient) {
        guard case .welcome(let welcome)? = try? ServerMessage.decode(text) else {
            errors += 1
            return
        }
        client.epoch = welcome.epoch
        client.rev = welcome.rev
        welcomes += 1
        if case .state = welcome.sync { snapshots += 1 }
        lastWelcomeNanos = LoadStatistics.nowNanoseconds()
    }

    /// Counts one delivery of the stamped message at `start`, and completes it once every member got it.
    private func deliver(_ raw: UnsafeRawBufferPointer, from start: Int) {
        var index = start
        let sender = LoadStatistics.parseInteger(raw, at: &index)
        let seq = LoadStatistics.parseInteger(raw, at: &index)
        let sentAt = LoadStatistics.parseInteger(raw, at: &index)
        delivered += 1
        if recordLatency { latencies.append(LoadStatistics.nowNanoseconds() - sentAt) }
        guard sender < clients.count else { return }
        let origin = clients[sender]
        guard let left = origin.remaining[seq] else { return }
        if left > 1 {
            origin.remaining[seq] = left - 1
        } else {
            origin.remaining[seq] = nil
            origin.outstanding -= 1
            if closedLoop { send(from: origin) }
        }
    }

    func closed(code: UInt16?, reason: String) {
        closes["\(code.map(String.init) ?? "none") \(reason)", default: 0] += 1
    }

    private static func starts(_ raw: UnsafeRawBufferPointer, with prefix: [UInt8]) -> Bool {
        guard raw.count >= prefix.count else { return false }
        for index in 0..<prefix.count where raw[index] != prefix[index] { return false }
        return true
    }
}
