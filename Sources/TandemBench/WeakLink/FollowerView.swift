import TandemSynchronization

/// What a follower shows, as its renderer would read it once per frame: the newest offset it received,
/// and how many offsets arrived since the previous frame (several in one frame: stale updates bunched).
final class FollowerView: Sendable {
    private struct State {
        var shown: Double?
        var arrivedSinceFrame = 0
        var messages = 0
    }

    private let state = Locked(State())

    /// An offset arrived.
    func receive(_ y: Double) {
        state.withLock { state in
            guard state.shown != y else { return }
            state.shown = y
            state.arrivedSinceFrame += 1
            state.messages += 1
        }
    }

    /// The frame's reading: the offset shown and how many arrived since the last frame.
    func frame() -> (shown: Double?, arrived: Int) {
        state.withLock { state in
            defer { state.arrivedSinceFrame = 0 }
            return (state.shown, state.arrivedSinceFrame)
        }
    }

    /// Offsets received (distinct changes) so far.
    var messages: Int { state.withLock { $0.messages } }
}
