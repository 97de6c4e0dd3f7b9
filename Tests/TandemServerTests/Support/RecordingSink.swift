import Synchronization
import Testing
import TandemTestSupport
import TandemProtocol
@testable import TandemServer

/// A `SessionSink` that decodes and keeps everything a session or room sends, and lets a test
/// await the next event with a bounded wait.
final class RecordingSink: SessionSink {
    enum Event: Equatable, Sendable {
        case message(ServerMessage)
        case closed(CloseCode, ServerMessage?)
    }

    private let mailbox = Mailbox<Event>()
    private let closed = Atomic<Bool>(false)

    /// Records the message, unless the sink was closed (a closed connection sends nothing more).
    func send(_ message: OutboundMessage) {
        guard !isClosed else { return }
        mailbox.push(.message(try! ServerMessage.decode(message.payload)))
    }

    func close(_ code: CloseCode, error: OutboundMessage?) {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mailbox.push(.closed(code, error.map { try! ServerMessage.decode($0.payload) }))
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    /// Everything received so far, read or not.
    var all: [Event] { mailbox.all }

    /// The next unread event, or `nil` if none arrives within `timeout`.
    func next(timeout: Duration = .seconds(5)) async -> Event? {
        await mailbox.next(timeout: timeout)
    }

    /// The next unread message, skipping nothing; fails the test on a close or a timeout.
    func nextMessage(timeout: Duration = .seconds(5), sourceLocation: SourceLocation = #_sourceLocation) async -> ServerMessage? {
        switch await next(timeout: timeout) {
        case .message(let message): return message
        case let other:
            Issue.record("expected a message, got \(String(describing: other))", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// Reads until a message of `type` arrives (skipping others) or the wait runs out.
    func nextMessage(ofType type: String, timeout: Duration = .seconds(5)) async -> ServerMessage? {
        while let event = await next(timeout: timeout) {
            if case .message(let message) = event, message.type == type { return message }
        }
        return nil
    }

    /// Reads until the connection is closed; returns the close code, or `nil` on a timeout.
    func nextClose(timeout: Duration = .seconds(5)) async -> CloseCode? {
        while let event = await next(timeout: timeout) {
            if case .closed(let code, _) = event { return code }
        }
        return nil
    }

    /// Whether nothing more arrives within `window` (for "no leave/join was sent" checks).
    func staysQuiet(for window: Duration = .milliseconds(100)) async -> Bool {
        await next(timeout: window) == nil
    }
}
