import Synchronization
import TandemKit
import TandemTesting
import Testing

/// A presenter that logs every call and takes `fadeOut` of manual-clock time to dismiss.
final class RecordingPresenter: FeedbackPresenter {
    private struct State {
        var log: [String] = []
        var visible = 0
        var maxVisible = 0
    }

    private let state = Mutex(State())
    private let clock: ManualClock
    private let fadeOut: Duration

    init(clock: ManualClock, fadeOut: Duration = .milliseconds(250)) {
        self.clock = clock
        self.fadeOut = fadeOut
    }

    var log: [String] { state.withLock { $0.log } }
    var maxVisible: Int { state.withLock { $0.maxVisible } }

    func note(_ line: String) { state.withLock { $0.log.append(line) } }

    func present(_ item: FeedbackItem) async {
        state.withLock {
            $0.log.append("present \(item.message.text)")
            $0.visible += 1
            $0.maxVisible = max($0.maxVisible, $0.visible)
        }
    }

    func dismiss(_ item: FeedbackItem) async {
        note("fade \(item.message.text)")
        if fadeOut > .zero { try? await clock.sleep(for: fadeOut) }
        state.withLock {
            $0.log.append("gone \(item.message.text)")
            $0.visible -= 1
        }
    }
}

/// Collects outcomes delivered through completion closures.
final class OutcomeLog: Sendable {
    private let entries = Mutex<[String]>([])
    var all: [String] { entries.withLock { $0 } }
    func record(_ tag: String) -> @Sendable (FeedbackOutcome) -> Void {
        { outcome in self.entries.withLock { $0.append("\(tag): \(outcome)") } }
    }
}

/// A manual clock, a presenter that fades out over `fadeOut`, and a queue with standard timings.
func makeFeedbackQueue(fadeOut: Duration = .milliseconds(250)) -> (ManualClock, RecordingPresenter, FeedbackQueue) {
    let clock = ManualClock()
    let presenter = RecordingPresenter(clock: clock, fadeOut: fadeOut)
    return (clock, presenter, FeedbackQueue(presenter: presenter, clock: clock))
}

/// Yields until `condition` holds; records a failure (and returns false) if it does not within a
/// generous number of scheduler turns, so a broken queue fails the test instead of hanging it.
@discardableResult
func settle(
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    until condition: () -> Bool
) async -> Bool {
    for _ in 0..<200_000 {
        if condition() { return true }
        await Task.yield()
    }
    Issue.record(Comment(rawValue: "Gave up waiting for \(what)"), sourceLocation: sourceLocation)
    return false
}
