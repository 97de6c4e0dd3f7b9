/// How long an event loop keeps polling for events after some work before it sleeps in the selector, adapted to
/// how busy the loop has been.
///
/// A loop that sleeps pays a wake-up for its next event; on a virtual machine the halted virtual CPU it slept on
/// must first be rescheduled by the hypervisor, and the woken thread may be placed behind another one. A loop
/// that polls keeps its core and sees the next event at once, but burns CPU while nothing comes. So a loop polls
/// for `short` after work, and for `long` once work filled at least `busyPercent` of the last `epoch`: it is busy
/// anyway, its next event is near, and the polling costs at most the rest of that core (the loop yields it
/// between polls to any thread that wants it). With `adapts` false the window stays `short`. Measured in
/// docs/bench/relays-profile.md ("Polling longer while a loop is busy").
///
/// Value type, owned by one loop thread; all times are monotonic nanoseconds.
struct PollWindow: Sendable, Equatable {
    /// The window of a loop that is mostly idle: a reply usually comes within tens of microseconds.
    static let short: UInt64 = 50_000
    /// The window of a busy loop.
    static let long: UInt64 = 250_000
    /// How often the loop's busy share is assessed.
    static let epoch: UInt64 = 100_000_000
    /// The share of an epoch spent working from which the loop polls for `long`, in percent.
    static let busyPercent: UInt64 = 40

    /// Whether the window may grow to `long` (servers whose loops leave a core free); otherwise always `short`.
    let adapts: Bool
    /// How long to poll after the work that just ended.
    private(set) var current: UInt64 = PollWindow.short
    private var epochStart: UInt64
    private var busy: UInt64 = 0

    /// A window starting its first epoch at `now`.
    init(adapts: Bool, now: UInt64) {
        self.adapts = adapts
        epochStart = now
    }

    /// Records that the loop worked from `start` to `end` (`start` ≤ `end`), and at the end of an epoch picks the
    /// window for the next one. An epoch the loop slept through counts as idle: it ends at the next work.
    mutating func worked(from start: UInt64, to end: UInt64) {
        busy &+= end &- start
        let elapsed = end &- epochStart
        guard elapsed >= Self.epoch else { return }
        current = adapts && busy * 100 >= elapsed * Self.busyPercent ? Self.long : Self.short
        epochStart = end
        busy = 0
    }
}
