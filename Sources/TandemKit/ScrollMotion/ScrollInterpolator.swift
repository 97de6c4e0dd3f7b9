/// Moves a follower's view smoothly through the scroll offsets that arrive from the room, instead of
/// jumping from value to value as they land.
///
/// It renders a little in the past: each received offset is placed on a timeline near its arrival (one
/// mean gap after the previous one, unless it arrived outside twice the gaps' deviation from there), and
/// a frame at `now` shows the timeline at `now − delay`, tweened linearly between the two received
/// offsets around that instant. So the view only ever passes through positions between values that
/// arrived (it never overshoots or guesses ahead), and it rests exactly on the last one.
///
/// The delay follows the link: the mean gap between arrivals plus their mean deviation (estimated as
/// RFC 6298 estimates a round trip), at most `maximumDelay`. On a steady link it is about one gap,
/// which keeps every frame between two known values; on a jittery one it grows just enough to ride
/// out late arrivals. Two rules keep it honest: an offset farther than `snapDistance` from the last
/// one (another part of the page, a tab change) is shown at once, and the first offset after a pause
/// longer than `pause` moves in over one typical gap, not over the whole pause.
///
/// A value type with no clock of its own: the caller passes monotonic nanoseconds (a display link's
/// timestamp), so tests drive it by hand. `Tests/Fixtures/scroll-interpolation.json` holds cases the
/// web client's `ScrollInterpolator` runs too.
public struct ScrollInterpolator: Sendable, Equatable {
    /// The rules' constants.
    public struct Configuration: Sendable, Equatable {
        /// An offset at least this far (points, on either axis) from the last one is shown at once.
        public var snapDistance: Double
        /// The longest render delay, nanoseconds.
        public var maximumDelay: Int64
        /// A gap between arrivals longer than this, nanoseconds, ends a motion: it does not count in
        /// the delay, and the next offset moves in over one typical gap.
        public var pause: Int64

        /// Defaults: snap beyond 1,000 points (about a phone screen: apps pass their viewport's
        /// height), a delay of at most 300 ms, a pause from 250 ms.
        public init(snapDistance: Double = 1_000, maximumDelay: Int64 = 300_000_000, pause: Int64 = 250_000_000) {
            self.snapDistance = snapDistance
            self.maximumDelay = maximumDelay
            self.pause = pause
        }
    }

    /// What a frame shows.
    public struct Frame: Sendable, Equatable {
        /// The offset to show.
        public var offset: ContentOffset
        /// The number `receive` gave the received offset it starts from.
        public var older: Int
        /// The number of the received offset it moves towards (`older` when it rests on one).
        public var newer: Int
        /// How far from the older offset to the newer one it is, 0…1.
        public var fraction: Double
        /// True when it shows the newest offset received: no more frames are needed until another arrives.
        public var isResting: Bool
    }

    private struct Sample: Sendable, Equatable {
        var offset: ContentOffset
        /// Where it sits on the timeline, nanoseconds (its arrival, or earlier for a motion's first one).
        var time: Int64
        var number: Int
    }

    /// The rules in use.
    public let configuration: Configuration
    private var samples: [Sample] = []
    private var received = 0
    private var lastArrival: Int64?
    /// The gaps between arrivals (seconds) that lie within a motion: their mean and deviation.
    private var gaps = RTTEstimator()
    /// The timeline instant the last frame showed: a growing delay holds the view still, never moves it back.
    private var shownInstant: Int64 = .min

    /// Creates an interpolator with nothing received.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The current render delay, nanoseconds: 0 until two offsets arrived close together.
    public var delay: Int64 {
        guard let mean = gaps.smoothed, let deviation = gaps.variation else { return 0 }
        return min(configuration.maximumDelay, Int64(((mean + deviation) * 1e9).rounded()))
    }

    /// An offset arrived at `now`. Returns its number (the first is 0).
    @discardableResult
    public mutating func receive(_ offset: ContentOffset, at now: Int64) -> Int {
        let number = received
        received += 1
        defer { lastArrival = now }
        guard let last = samples.last, let lastArrival else {
            samples = [Sample(offset: offset, time: now, number: number)]
            return number
        }
        if abs(offset.x - last.offset.x) >= configuration.snapDistance || abs(offset.y - last.offset.y) >= configuration.snapDistance {
            samples = [Sample(offset: offset, time: now, number: number)]
            return number
        }
        let gap = now - lastArrival
        var time = now
        if gap > configuration.pause {
            // A new motion: it starts from where the view rests, over one typical gap.
            samples = [Sample(offset: last.offset, time: max(last.time, now - Int64(((gaps.smoothed ?? 0) * 1e9).rounded())),
                              number: last.number)]
        } else {
            gaps.add(sample: Double(gap) / 1e9)
            // The leader sends at a steady pace; the network adds the jitter. So an offset goes on the
            // timeline one mean gap after the previous one, moved only as far as its arrival lies
            // outside twice the deviation: the view moves at the leader's pace, not the network's.
            let mean = Int64(((gaps.smoothed ?? 0) * 1e9).rounded())
            let slack = Int64((2 * (gaps.variation ?? 0) * 1e9).rounded())
            time = max(last.time, min(max(last.time + mean, now - slack), now + slack))
        }
        samples.append(Sample(offset: offset, time: time, number: number))
        return number
    }

    /// Forgets every offset (the view switched tabs): the next one is shown at once.
    public mutating func reset() {
        samples = []
    }

    /// The frame to show at `now` (nondecreasing from call to call), nil before any offset arrived.
    /// Offsets the timeline has passed are dropped.
    public mutating func frame(at now: Int64) -> Frame? {
        guard let newest = samples.last else { return nil }
        let instant = max(shownInstant, now - delay)
        shownInstant = instant
        // The last sample at or before the instant: the segment starts there.
        var start = 0
        while start + 1 < samples.count, samples[start + 1].time <= instant { start += 1 }
        if start > 0 { samples.removeFirst(start) }
        let older = samples[0]
        guard samples.count > 1, instant > older.time else {
            let resting = samples.count == 1
            let shown = resting ? newest : older
            return Frame(offset: shown.offset, older: shown.number, newer: shown.number, fraction: 0, isResting: resting)
        }
        let newer = samples[1]
        let fraction = min(1, Double(instant - older.time) / Double(newer.time - older.time))
        let offset = ContentOffset(x: older.offset.x + (newer.offset.x - older.offset.x) * fraction,
                                   y: older.offset.y + (newer.offset.y - older.offset.y) * fraction)
        return Frame(offset: offset, older: older.number, newer: newer.number, fraction: fraction, isResting: false)
    }
}
