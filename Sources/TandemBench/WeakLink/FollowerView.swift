import TandemKit
import TandemSynchronization

/// What a follower shows, as its renderer would read it once per frame: the newest offset it received
/// (raw), the same offsets smoothed by `ScrollInterpolator` (what `ScrollSync.followFrame` shows), and
/// how many offsets arrived since the previous frame (several in one frame: stale updates bunched).
final class FollowerView: Sendable {
    /// A frame's reading.
    struct Reading: Sendable {
        var shown: Double?
        var arrived: Int
        /// The smoothed view: the received offsets it lies between and how far from the first to the second.
        var smoothed: WeakLinkFigures.Tween?
    }

    private struct State {
        var shown: Double?
        var arrivedSinceFrame = 0
        var messages = 0
        var interpolator = ScrollInterpolator()
        /// The offsets the interpolator received, by the number it gave them.
        var received: [Double] = []
    }

    private let state = Locked(State())
    private let now: @Sendable () -> Int64

    /// - Parameter now: monotonic nanoseconds, the clock of arrivals and frames.
    init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// An offset arrived.
    func receive(_ y: Double) {
        let at = now()
        state.withLock { state in
            guard state.shown != y else { return }
            state.shown = y
            state.arrivedSinceFrame += 1
            state.messages += 1
            state.interpolator.receive(ContentOffset(x: 0, y: y), at: at)
            state.received.append(y)
        }
    }

    /// The frame's reading.
    func frame() -> Reading {
        let at = now()
        return state.withLock { state in
            defer { state.arrivedSinceFrame = 0 }
            let smoothed = state.interpolator.frame(at: at).map { frame in
                WeakLinkFigures.Tween(from: state.received[frame.older], to: state.received[frame.newer], fraction: frame.fraction)
            }
            return Reading(shown: state.shown, arrived: state.arrivedSinceFrame, smoothed: smoothed)
        }
    }

    /// Offsets received (distinct changes) so far.
    var messages: Int { state.withLock { $0.messages } }
}
