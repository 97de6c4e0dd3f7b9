import TandemSynchronization
import TandemProtocol
import TandemWire

/// The rooms' side of webhooks: turns what happens in rooms into events and hands them to the
/// dispatcher, without ever waiting for it. Calls are cheap and non-blocking (an append under a lock),
/// so rooms make them under their own lock, which keeps each room's events in the order they happened.
///
/// `state.changed` is a throttle per room: the first change opens a window of `debounce`; when it
/// closes, one event carries the newest rev and every path touched in it. A room that ends first has
/// its pending change sent before its `room.ended`.
package final class WebhookEmitter: WebhookReporter {
    /// The most paths one `state.changed` lists; beyond them it says `"pathsTruncated": true`.
    package static let maxPaths = 256

    private struct PendingChange {
        var rev: Int64
        var paths: Set<String>
        var truncated: Bool
        var timer: (any ScheduledTimer)?
    }

    private struct State {
        var changes: [String: PendingChange] = [:]
        var closed = false
    }

    private let state = Locked(State())
    private let scheduler: any TimerScheduler
    private let debounce: Duration
    private let now: @Sendable () -> Int64
    private let random: any RandomByteSource
    /// Events go to the dispatcher's queue from here; ones it refuses (a full disk) wait in order.
    private let pump: WebhookBatchPump<WebhookEvent>

    /// - Parameters:
    ///   - scheduler: runs the end of each room's `state.changed` window.
    ///   - now: unix ms, the `time` of events.
    ///   - random: makes event ids.
    ///   - clock: what the waits between tries to write to a failing queue sleep on.
    package init(dispatcher: WebhookDispatcher, scheduler: any TimerScheduler, debounce: Duration, now: @escaping @Sendable () -> Int64,
                 random: any RandomByteSource, logger: Logger, clock: any Clock<Duration> = ContinuousClock()) {
        self.scheduler = scheduler
        self.debounce = debounce
        self.now = now
        self.random = random
        pump = WebhookBatchPump(what: "events", logger: logger, clock: clock) { events in try await dispatcher.submit(events) }
    }

    // MARK: - What rooms report

    /// A participant was admitted; `first` when nobody else was in the room (a session starts).
    package func joined(room: String, _ participant: Participant, first: Bool) {
        let fields = WebhookEvent.participantFields(participant)
        emit { at in
            (first ? [self.event(.roomStarted, room: room, at: at)] : []) + [self.event(.participantJoined, room: room, at: at, fields)]
        }
    }

    /// A participant left; `last` when nobody is in the room any more (the session ends).
    package func left(room: String, _ participant: Participant, last: Bool) {
        let fields = WebhookEvent.participantFields(participant)
        emit { at in
            var events = [self.event(.participantLeft, room: room, at: at, fields)]
            if last { events += [self.event(.roomEnded, room: room, at: at)] }
            return events
        } before: { state, at in
            last ? self.takeChange(room: room, in: &state, at: at) : []
        }
    }

    /// A patch was applied at `rev` with `ops` (alone, every patch is authored here).
    package func changed(room: String, rev: Int64, ops: [PatchOp], authoredHere: Bool = true) {
        state.withLock { state in
            guard !state.closed else { return }
            var change = state.changes[room] ?? PendingChange(rev: rev, paths: [], truncated: false, timer: nil)
            change.rev = max(change.rev, rev)
            for path in WebhookEvent.touchedPaths(ops) where !change.paths.contains(path) {
                if change.paths.count < Self.maxPaths { change.paths.insert(path) } else { change.truncated = true }
            }
            // Scheduling never runs the work in place, so the window opens under the lock.
            if change.timer == nil {
                change.timer = scheduler.schedule(after: debounce) { [weak self] in self?.closeWindow(room: room) }
            }
            state.changes[room] = change
        }
    }

    /// A host removed `user` from the room.
    package func removed(room: String, user: String, by host: String) {
        emit { at in [self.event(.participantRemoved, room: room, at: at, ["user": .string(user), "by": .string(host)])] }
    }

    /// An invitation to the room was accepted by `user` with `role`.
    package func inviteAccepted(room: String, user: String, role: Role, name: String?) {
        var fields: [String: JSONValue] = ["user": .string(user), "role": .string(role.rawValue)]
        if let name { fields["name"] = .string(name) }
        emit { at in [self.event(.inviteAccepted, room: room, at: at, fields)] }
    }

    /// Sends every pending `state.changed` now, stops taking events, and waits until everything
    /// emitted is in the dispatcher's queue (at shutdown).
    package func close() async {
        state.withLock { state in
            let at = now()
            var events: [WebhookEvent] = []
            for room in state.changes.keys.sorted() { events += takeChange(room: room, in: &state, at: at) }
            state.closed = true
            pump.update { $0 += events; return !events.isEmpty }
        }
        await pump.close()
    }

    // MARK: - Internals

    private func closeWindow(room: String) {
        emit { _ in [] } before: { state, at in self.takeChange(room: room, in: &state, at: at) }
    }

    /// The room's pending change as an event (removed from the pending ones); none when there is none.
    private func takeChange(room: String, in state: inout State, at: Int64) -> [WebhookEvent] {
        guard let change = state.changes.removeValue(forKey: room) else { return [] }
        change.timer?.cancel()
        var fields: [String: JSONValue] = ["rev": .number(Double(change.rev)), "paths": .array(change.paths.sorted().map(JSONValue.string))]
        if change.truncated { fields["pathsTruncated"] = .bool(true) }
        return [event(.stateChanged, room: room, at: at, fields)]
    }

    private func emit(_ make: (Int64) -> [WebhookEvent],
                      before: (inout State, Int64) -> [WebhookEvent] = { _, _ in [] }) {
        state.withLock { state in
            guard !state.closed else { return }
            let at = now()
            let events = before(&state, at) + make(at)
            // Handed over under the lock, so events leave in the order they were decided.
            pump.update { $0 += events; return !events.isEmpty }
        }
    }

    private func event(_ kind: WebhookEvent.Kind, room: String, at: Int64, _ fields: [String: JSONValue] = [:]) -> WebhookEvent {
        WebhookEvent(id: Hex.lowercase(random.bytes(count: 16)), kind: kind, time: at, room: room, fields: fields)
    }
}
