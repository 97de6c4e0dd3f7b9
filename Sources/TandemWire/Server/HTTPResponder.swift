import TandemSynchronization

/// The answer slot of one plain HTTP request: the route calls ``respond(_:)`` exactly once, from any thread
/// and at any later time (for example after a storage commit).
///
/// Requests on one connection are answered in order: while a response is outstanding the connection reads
/// no further request. A responder dropped without an answer sends 500, so a route bug cannot leave a client
/// waiting forever.
package final class HTTPResponder: Sendable {
    /// The peer's address, when the socket could report it (for per-address limits and logs).
    package let remoteAddress: SocketAddress?
    private let deliver: @Sendable (HTTPResponse) -> Void
    private let answered = AtomicValue<Bool>(false)

    /// Creates a responder that hands its one response to `deliver` (tests use this to capture responses).
    package init(remoteAddress: SocketAddress?, deliver: @escaping @Sendable (HTTPResponse) -> Void) {
        self.remoteAddress = remoteAddress
        self.deliver = deliver
    }

    deinit {
        if !answered.load(ordering: .acquiring) {
            deliver(.jsonError(status: 500, error: "internal", message: "the server dropped the request without an answer"))
        }
    }

    /// Sends `response`. Later calls are ignored.
    package func respond(_ response: HTTPResponse) {
        guard !answered.exchange(true, ordering: .acquiringAndReleasing) else { return }
        deliver(response)
    }
}
