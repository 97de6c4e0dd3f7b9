import TandemSynchronization

/// How a listener serves TLS: the context with its certificate, and what a client that sends plain text
/// instead of a TLS hello is told before the connection closes.
///
/// The context can be replaced while the listener runs (renewed certificates): connections accepted
/// afterwards use the new one, those already open keep theirs. Thread-safe.
package final class TLSServerSettings: Sendable {
    private let current: Locked<TLSContext>
    /// Bytes written unencrypted to a plain-text client, e.g. an HTTP 400 naming `https://`; nil closes at once.
    package let plaintextReply: [UInt8]?

    /// Serves `context`, answering plain-text clients with `plaintextReply`.
    package init(context: TLSContext, plaintextReply: [UInt8]? = nil) {
        current = Locked(context)
        self.plaintextReply = plaintextReply
    }

    /// The server context new connections get.
    package var context: TLSContext { current.withLock { $0 } }

    /// Makes `context` the one new connections get.
    package func replace(_ context: TLSContext) {
        current.withLock { $0 = context }
    }
}
