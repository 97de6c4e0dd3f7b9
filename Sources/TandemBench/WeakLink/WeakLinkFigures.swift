/// The figures of one run: how stale the follower's view is, frame by frame, and how long the last
/// position takes to arrive.
///
/// Staleness at a frame is 0 while the follower shows the leader's current offset, else the age of the
/// offset it shows: the time since the leader set it, where an offset the leader held through a pause
/// counts as set one frame before the leader's next change (a pause is not lag). Settle is the time from
/// the leader's last change to the frame that first shows it. Frames are sampled from the leader's
/// first change until the follower shows the last one.
struct WeakLinkFigures: Sendable, Equatable {
    var p50: Double
    var p99: Double
    var max: Double
    /// Seconds from the last change to the first frame showing it; nil when it never showed.
    var settle: Double?
    /// Frames in which two or more offsets arrived.
    var bunchedFrames: Int
    /// Offsets shown that went backwards in the trace (an older sample after a newer one): must be 0.
    var backwards: Int

    /// One sampled frame: when (seconds from the trace's start), what was shown, how many offsets arrived.
    struct Frame: Sendable, Equatable {
        var at: Double
        var shown: Double?
        var arrived: Int
    }

    /// The figures of `frames` for the leader's `trace`.
    init(trace: ScrollTrace, frames: [Frame]) {
        let times = trace.samples.map { Self.seconds($0.at) }
        var index: [Double: Int] = [:]
        for (position, sample) in trace.samples.enumerated() { index[sample.y] = position }
        var staleness: [Double] = []
        var settle: Double?
        var bunched = 0
        var backwards = 0
        var lastShown = -1
        let lastTime = times.last ?? 0
        for frame in frames {
            if frame.arrived >= 2 { bunched += 1 }
            guard let shown = frame.shown, let position = index[shown] else {
                if frame.at >= (times.first ?? 0) { staleness.append(frame.at - (times.first ?? 0)) }
                continue
            }
            if position < lastShown { backwards += 1 }
            lastShown = Swift.max(lastShown, position)
            // The leader's current sample at this frame: the last one set at or before it.
            let current = Self.lastIndex(in: times, atOrBefore: frame.at)
            let set = position + 1 < times.count ? Swift.max(times[position], times[position + 1] - Self.seconds(ScrollTrace.frame)) : times[position]
            staleness.append(position >= current ? 0 : frame.at - set)
            if position == trace.samples.count - 1, settle == nil { settle = frame.at - lastTime }
        }
        self.p50 = staleness.percentile(0.5)
        self.p99 = staleness.percentile(0.99)
        self.max = staleness.max() ?? 0
        self.settle = settle
        self.bunchedFrames = bunched
        self.backwards = backwards
    }

    private static func lastIndex(in times: [Double], atOrBefore instant: Double) -> Int {
        var low = 0, high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low - 1
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
