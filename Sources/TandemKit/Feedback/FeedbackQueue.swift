import TandemSynchronization

/// Shows toasts and HUDs one at a time through a `FeedbackPresenter` and tells each caller when
/// its message has completely disappeared.
///
/// Guarantees:
/// - One message is visible at a time; `present`/`dismiss` calls never overlap.
/// - Every `enqueue`/`show` gets exactly one `FeedbackOutcome`, delivered only after the message's
///   dismissal animation has finished (or, for `.discarded`, when it is withdrawn unseen). A loading
///   HUD replaced by a newer message completes with `.replaced`: no completion is ever dropped.
/// - Waiting messages are shown by priority, then submission order. An identical message queued
///   directly behind another (or behind the visible one, before it starts to fade) is coalesced:
///   it is shown once and every caller completes together.
/// - A loading HUD is replaced by any message submitted after it: at once when the HUD is visible,
///   unseen (outcome `.replaced`) when the newer message was shown first — e.g. an error that
///   jumped ahead of a waiting HUD — so a HUD never appears after the result it was waiting for.
///   A timed toast is never cut short by another message (an error jumps the waiting queue, not
///   the visible toast).
/// - Display durations are measured on the injected clock, so tests need no real sleeping.
///
/// Thread-safe: `enqueue` is synchronous and callable from any thread, so messages submitted in
/// sequence by one caller keep their order. Completion closures run on the queue's driver task,
/// one after another; keep them short.
public final class FeedbackQueue: Sendable {
    private enum Phase {
        case presenting
        case dismissing
    }

    private struct Entry {
        var ticket: FeedbackTicket
        var message: FeedbackMessage
        var priority: FeedbackPriority
        var displayDuration: Duration?
        var completions: [@Sendable (FeedbackOutcome) -> Void]

        var item: FeedbackItem { FeedbackItem(ticket: ticket, message: message, displayDuration: displayDuration) }
    }

    private struct Visible {
        var entry: Entry
        var phase: Phase
        var endReason: FeedbackOutcome?
        var interrupt: AsyncStream<Void>.Continuation
    }

    private struct State {
        var nextID: UInt64 = 0
        var pending: [Entry] = []
        var visible: Visible?
        var driving = false
    }

    private let presenter: any FeedbackPresenter
    private let clock: any Clock<Duration>
    private let timings: FeedbackTimings
    private let state = Locked(State())

    /// Creates a queue that draws through `presenter` and measures display time on `clock`.
    public init(presenter: any FeedbackPresenter, clock: any Clock<Duration> = ContinuousClock(), timings: FeedbackTimings = .standard) {
        self.presenter = presenter
        self.clock = clock
        self.timings = timings
    }

    /// Whether nothing is visible or waiting.
    public var isIdle: Bool { state.withLock { $0.visible == nil && $0.pending.isEmpty } }

    /// The number of messages waiting behind the visible one.
    public var waitingCount: Int { state.withLock { $0.pending.count } }

    /// Queues `message` and returns at once; `completion` is called exactly once, after the message
    /// has been dismissed and its animation has finished (see `FeedbackOutcome`).
    ///
    /// - Parameter priority: defaults to `message.defaultPriority` (errors are `.high`).
    /// - Returns: the message's ticket, for `dismiss(_:)`; a coalesced message returns the ticket
    ///   of the message it joined.
    @discardableResult
    public func enqueue(
        _ message: FeedbackMessage,
        priority: FeedbackPriority? = nil,
        completion: (@Sendable (FeedbackOutcome) -> Void)? = nil
    ) -> FeedbackTicket {
        let priority = priority ?? message.defaultPriority
        let (ticket, replace, startDriver) = state.withLock { state -> (FeedbackTicket, AsyncStream<Void>.Continuation?, Bool) in
            // Insert after every waiting message of at least this priority.
            let index = state.pending.lastIndex { $0.priority >= priority }.map { $0 + 1 } ?? 0
            if index > 0 {
                if state.pending[index - 1].message == message && state.pending[index - 1].priority == priority {
                    if let completion { state.pending[index - 1].completions.append(completion) }
                    return (state.pending[index - 1].ticket, nil, false)
                }
            } else if var visible = state.visible, visible.phase == .presenting, visible.endReason == nil,
                      visible.entry.message == message, visible.entry.priority == priority {
                if let completion { visible.entry.completions.append(completion) }
                state.visible = visible
                return (visible.entry.ticket, nil, false)
            }
            state.nextID += 1
            let ticket = FeedbackTicket(id: state.nextID)
            let entry = Entry(
                ticket: ticket,
                message: message,
                priority: priority,
                displayDuration: timings.displayDuration(for: message),
                completions: completion.map { [$0] } ?? []
            )
            state.pending.insert(entry, at: index)
            var replace: AsyncStream<Void>.Continuation?
            if var visible = state.visible, visible.entry.displayDuration == nil, visible.phase == .presenting, visible.endReason == nil {
                visible.endReason = .replaced
                replace = visible.interrupt
                state.visible = visible
            }
            let startDriver = !state.driving
            state.driving = true
            return (ticket, replace, startDriver)
        }
        replace?.finish()
        if startDriver {
            Task { await self.drive() }
        }
        return ticket
    }

    /// Shows `message` and returns once it has been dismissed and its dismissal animation has
    /// finished; exactly one outcome per call.
    ///
    /// Cancelling the calling task does not withdraw the message (use `enqueue` and `dismiss`).
    @discardableResult
    public func show(_ message: FeedbackMessage, priority: FeedbackPriority? = nil) async -> FeedbackOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<FeedbackOutcome, Never>) in
            enqueue(message, priority: priority) { continuation.resume(returning: $0) }
        }
    }

    /// Ends `ticket`'s message: a visible one starts its dismissal now (outcome `.dismissed`), a
    /// waiting one is withdrawn unseen (outcome `.discarded`). Unknown or finished tickets are ignored.
    public func dismiss(_ ticket: FeedbackTicket) {
        let (interrupt, withdrawn) = state.withLock { state -> (AsyncStream<Void>.Continuation?, Entry?) in
            if let index = state.pending.firstIndex(where: { $0.ticket == ticket }) {
                return (nil, state.pending.remove(at: index))
            }
            return (Self.endDisplay(of: ticket, reason: .dismissed, in: &state), nil)
        }
        interrupt?.finish()
        withdrawn?.completions.forEach { $0(.discarded) }
    }

    /// Withdraws every waiting message (outcome `.discarded`) and dismisses the visible one
    /// (`.dismissed`): e.g. when the user logs out or the screen that asked for them goes away.
    public func dismissAll() {
        let (interrupt, withdrawn) = state.withLock { state -> (AsyncStream<Void>.Continuation?, [Entry]) in
            let withdrawn = state.pending
            state.pending.removeAll()
            guard let ticket = state.visible?.entry.ticket else { return (nil, withdrawn) }
            return (Self.endDisplay(of: ticket, reason: .dismissed, in: &state), withdrawn)
        }
        interrupt?.finish()
        for entry in withdrawn { entry.completions.forEach { $0(.discarded) } }
    }

    /// Marks the visible message as ending for `reason` unless it already is; returns the signal to fire.
    private static func endDisplay(of ticket: FeedbackTicket, reason: FeedbackOutcome, in state: inout State) -> AsyncStream<Void>.Continuation? {
        guard var visible = state.visible, visible.entry.ticket == ticket, visible.phase == .presenting, visible.endReason == nil else {
            return nil
        }
        visible.endReason = reason
        state.visible = visible
        return visible.interrupt
    }

    private func drive() async {
        while let (entry, ended) = nextEntry() {
            let item = entry.item
            await presenter.present(item)
            let timer = entry.displayDuration.map { duration in
                Task { [clock] in
                    do {
                        try await clock.sleep(for: duration)
                    } catch {
                        return
                    }
                    self.state.withLock { Self.endDisplay(of: entry.ticket, reason: .expired, in: &$0) }?.finish()
                }
            }
            for await _ in ended {}
            timer?.cancel()
            state.withLock { $0.visible?.phase = .dismissing }
            await presenter.dismiss(item)
            let (reason, completions) = state.withLock { state -> (FeedbackOutcome, [@Sendable (FeedbackOutcome) -> Void]) in
                let visible = state.visible
                state.visible = nil
                return (visible?.endReason ?? .expired, visible?.entry.completions ?? [])
            }
            completions.forEach { $0(reason) }
        }
    }

    /// Takes the next message to show, completing unseen loading HUDs that a newer message has
    /// superseded (one waits behind it, or one submitted later was shown first) as `.replaced`;
    /// returns nil (and stops driving) when nothing waits.
    private func nextEntry() -> (Entry, AsyncStream<Void>)? {
        while true {
            let next = state.withLock { state -> (skipped: Entry?, shown: (Entry, AsyncStream<Void>)?) in
                guard !state.pending.isEmpty else {
                    state.driving = false
                    return (nil, nil)
                }
                let entry = state.pending.removeFirst()
                let superseded = !state.pending.isEmpty || entry.ticket.id < state.nextID
                if entry.displayDuration == nil && superseded {
                    return (entry, nil)
                }
                let (stream, continuation) = AsyncStream<Void>.makeStream()
                state.visible = Visible(entry: entry, phase: .presenting, endReason: nil, interrupt: continuation)
                return (nil, (entry, stream))
            }
            if let skipped = next.skipped {
                skipped.completions.forEach { $0(.replaced) }
                continue
            }
            return next.shown
        }
    }
}
