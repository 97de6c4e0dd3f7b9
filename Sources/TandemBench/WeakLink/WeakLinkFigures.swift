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

    /// The same staleness for the smoothed view (`ScrollInterpolator`), which shows positions between
    /// received offsets: the age of the leader's moment it shows, interpolated between the two samples.
    var smoothedP50: Double
    var smoothedP99: Double
    /// Judder: the sum over frames of the change of velocity (points per frame, frame to frame) of the
    /// raw view, of the smoothed view, and of the leader's own motion sampled at the same frames.
    var judder: (raw: Double, smoothed: Double, leader: Double)

    /// A smoothed frame: between received offsets `from` and `to`, `fraction` of the way.
    struct Tween: Sendable, Equatable {
        var from: Double
        var to: Double
        var fraction: Double
    }

    /// One sampled frame: when (seconds from the trace's start), what was shown raw, how many offsets
    /// arrived, what the smoothed view showed.
    struct Frame: Sendable, Equatable {
        var at: Double
        var shown: Double?
        var arrived: Int
        var smoothed: Tween? = nil
    }

    static func == (a: WeakLinkFigures, b: WeakLinkFigures) -> Bool {
        a.p50 == b.p50 && a.p99 == b.p99 && a.max == b.max && a.settle == b.settle && a.bunchedFrames == b.bunchedFrames
            && a.backwards == b.backwards && a.smoothedP50 == b.smoothedP50 && a.smoothedP99 == b.smoothedP99 && a.judder == b.judder
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
        // When the leader set sample `position`: an offset held through a pause counts as set one frame
        // before the next change (a pause is not lag).
        func setTime(_ position: Int) -> Double {
            position + 1 < times.count ? Swift.max(times[position], times[position + 1] - Self.seconds(ScrollTrace.frame)) : times[position]
        }
        var smoothedStaleness: [Double] = []
        var rawPath: [Double] = [], smoothedPath: [Double] = [], leaderPath: [Double] = []
        for frame in frames {
            let current = Self.lastIndex(in: times, atOrBefore: frame.at)
            if current >= 0 {
                leaderPath.append(trace.samples[current].y)
                if let shown = frame.shown { rawPath.append(shown) }
            }
            if let tween = frame.smoothed, let from = index[tween.from], let to = index[tween.to], current >= 0 {
                smoothedPath.append(tween.from + (tween.to - tween.from) * tween.fraction)
                let showsCurrent = to >= current && tween.fraction >= 1 || from == to && from >= current
                let moment = setTime(from) + (setTime(to) - setTime(from)) * tween.fraction
                smoothedStaleness.append(showsCurrent ? 0 : Swift.max(0, frame.at - moment))
            }

            if frame.arrived >= 2 { bunched += 1 }
            guard let shown = frame.shown, let position = index[shown] else {
                if frame.at >= (times.first ?? 0) { staleness.append(frame.at - (times.first ?? 0)) }
                continue
            }
            if position < lastShown { backwards += 1 }
            lastShown = Swift.max(lastShown, position)
            // `current`: the leader's sample at this frame, the last one set at or before it.
            staleness.append(position >= current ? 0 : frame.at - setTime(position))
            if position == trace.samples.count - 1, settle == nil { settle = frame.at - lastTime }
        }
        self.p50 = staleness.percentile(0.5)
        self.p99 = staleness.percentile(0.99)
        self.max = staleness.max() ?? 0
        self.settle = settle
        self.bunchedFrames = bunched
        self.backwards = backwards
        self.smoothedP50 = smoothedStaleness.percentile(0.5)
        self.smoothedP99 = smoothedStaleness.percentile(0.99)
        self.judder = (Self.judder(rawPath), Self.judder(smoothedPath), Self.judder(leaderPath))
    }

    /// The sum of |Δ velocity| along `path` (one position per frame).
    static func judder(_ path: [Double]) -> Double {
        let velocity = zip(path, path.dropFirst()).map { $1 - $0 }
        return zip(velocity, velocity.dropFirst()).reduce(0) { $0 + abs($1.1 - $1.0) }
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
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
