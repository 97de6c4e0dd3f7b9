import TandemClient
import TandemProtocol

/// The core of `tandem join`, independent of the process's streams: applies each input line (a
/// JSON array of ops) as one local patch of `session`, prints the session's events as JSON lines,
/// and at the end of input drains the outbox.
///
/// Output lines (stdout), one JSON object each: `{"event":"state","rev":N,"pending":K,"state":{…}}`
/// whenever the visible state, confirmed rev or pending count changes (and once more at the end),
/// `{"event":"status","status":…}` on lifecycle changes, `welcome`, `join`, `leave`, `presence`
/// and `signal` events, and `{"event":"link","quality":"degraded","missedPongs":N}` / `{"event":"link","quality":"good"}`
/// while pongs are late and once the server is heard from again. Diagnostics (bad lines, rejections, server errors) go to stderr. Event
/// lines keep the session's order; the final state line is always the last line.
public struct JoinRunner: Sendable {
    /// The session to drive; the runner starts and stops it.
    public let session: SyncSession
    /// Where output goes.
    public let console: any Console
    /// How long to wait for acks at the end of input.
    public let drainTimeout: Duration

    /// Creates a runner.
    public init(session: SyncSession, console: any Console, drainTimeout: Duration) {
        self.session = session
        self.console = console
        self.drainTimeout = drainTimeout
    }

    /// Runs until `lines` ends (an error ends the input too) and the outbox is drained or the
    /// drain timeout passed (it bounds waiting for the connection and for acks together). Returns 0 when every patch was acknowledged or rejected, 1 when some
    /// could not be delivered or the server refused the session.
    public func run<Lines: AsyncSequence>(lines: Lines) async -> Int32 where Lines.Element == String {
        let printers = startPrinters()
        await session.start()
        var number = 0
        do {
            for try await line in lines {
                number += 1
                await apply(line, number: number)
            }
        } catch {
            console.err("tandem join: reading input failed: \(error)")
        }
        // Even with nothing to send, wait for the session to be established (or refused), so a bad
        // token or URL is reported; both waits share the drain timeout.
        let start = ContinuousClock.now
        _ = await session.waitUntilConnected(timeout: drainTimeout)
        let delivered = await session.drain(timeout: drainTimeout - (ContinuousClock.now - start))
        let ending = await session.state
        let final = await session.snapshot
        await session.stop()
        for printer in printers { await printer.value }
        console.out(Self.line(Self.stateObject(final)))
        if case .closed(let reason) = ending, reason != .closedByApp {
            console.err("tandem join: \(reason)")
            return ExitCode.failure
        }
        guard delivered else {
            console.err("tandem join: \(final.pending) change(s) could not be delivered within \(drainTimeout)")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    /// Parses one input line and applies it; problems are reported on stderr and the line skipped.
    private func apply(_ line: String, number: Int) async {
        guard line.contains(where: { !$0.isWhitespace }) else { return }
        let ops: [PatchOp]
        do {
            ops = try PatchOp.list(from: try JSONValue.parse(line))
        } catch {
            console.err("tandem join: line \(number): not a JSON array of ops: \(error)")
            return
        }
        do {
            try await session.apply(ops)
            // With `--state`, a line read is a line kept: on disk before the next one is read.
            await session.flush()
        } catch {
            console.err("tandem join: line \(number): \(error)")
        }
    }

    /// One task prints the session's single ordered event stream, so status and state lines keep
    /// the order in which they happened.
    private func startPrinters() -> [Task<Void, Never>] {
        let console = console
        // Listening starts now, not when the task first runs.
        let events = session.events
        return [Task {
            for await event in events { Self.print(event, to: console) }
        }]
    }

    private static func print(_ event: SyncSessionEvent, to console: any Console) {
        switch event {
        case .connectionChanged(let state): console.out(line(statusObject(state)))
        case .attemptFailed(let reason): console.err("tandem join: \(reason)")
        case .stateChanged(let snapshot): console.out(line(stateObject(snapshot)))
        case .synchronized(let epoch, let rev, _, let participants):
            console.out(line(["event": "welcome", "epoch": .string(epoch), "rev": .number(Double(rev)),
                              "participants": .array(participants.map { .object(participantObject($0)) })]))
        case .joined(let participant):
            var object = participantObject(participant)
            object["event"] = "join"
            console.out(line(.object(object)))
        case .left(let peer):
            console.out(line(["event": "leave", "user": .string(peer.user), "client": .string(peer.client)]))
        case .presenceChanged(let peer, let data):
            console.out(line(["event": "presence", "user": .string(peer.user), "client": .string(peer.client), "data": data]))
        case .signal(let from, let name, let data):
            console.out(line(["event": "signal", "user": .string(from.user), "client": .string(from.client),
                              "name": .string(name), "data": data]))
        case .rejected(let seq, let code, let message, _):
            console.err("tandem join: change seq \(seq) rejected (\(code.wireValue)): \(message)")
        case .serverError(let code, let message):
            console.err("tandem join: server error \(code.wireValue): \(message)")
        case .resyncNeeded(let reason):
            console.err("tandem join: resynchronizing: \(reason)")
        case .linkDegraded(let missed):
            console.out(line(["event": "link", "quality": "degraded", "missedPongs": .number(Double(missed))]))
        case .linkRecovered:
            console.out(line(["event": "link", "quality": "good"]))
        case .protocolError(let error):
            console.err("tandem join: protocol error: \(error)")
        case .persistenceFailed(let error):
            console.err("tandem join: cannot save the session state: \(error)")
        case .acknowledged, .roundTrip:
            break // visible through the state lines
        }
    }

    static func stateObject(_ snapshot: SyncSnapshot) -> JSONValue {
        ["event": "state", "rev": .number(Double(snapshot.rev)), "pending": .number(Double(snapshot.pending)), "state": snapshot.state]
    }

    static func statusObject(_ state: ConnectionState) -> JSONValue {
        switch state {
        case .idle: ["event": "status", "status": "idle"]
        case .connecting: ["event": "status", "status": "connecting"]
        case .handshaking: ["event": "status", "status": "handshaking"]
        case .connected: ["event": "status", "status": "connected"]
        case .suspended: ["event": "status", "status": "suspended"]
        case .reconnecting(let attempt, let delay):
            ["event": "status", "status": "reconnecting", "attempt": .number(Double(attempt)), "delay": .number(delay.totalSeconds)]
        case .closed(let reason): ["event": "status", "status": "closed", "reason": .string(reason.description)]
        }
    }

    private static func participantObject(_ participant: Participant) -> [String: JSONValue] {
        var object: [String: JSONValue] = ["user": .string(participant.user), "client": .string(participant.client),
                                 "role": .string(participant.role.rawValue), "data": participant.data]
        if let name = participant.name { object["name"] = .string(name) }
        return object
    }

    private static func line(_ object: JSONValue) -> String {
        String(decoding: object.serializedBytes(), as: UTF8.self)
    }
}
