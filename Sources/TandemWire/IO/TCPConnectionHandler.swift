/// The owner of a `TCPConnection`: receives its bytes and lifecycle events. Every method is called on the
/// connection's loop thread, never from inside a call the handler itself made on the connection (`write`,
/// `close`, `abort`), so a handler may freely write or close from any callback.
///
/// The connection holds its handler strongly until `connectionDidClose`, then lets it go.
package protocol TCPConnectionHandler: AnyObject {
    /// Bytes arrived. `bytes` points into the loop's shared read buffer and is valid only during this call:
    /// copy what must outlive it. Bytes arrive in order; none arrive after `close()` or `abort()`.
    func connectionDidReceive(_ connection: TCPConnection, bytes: UnsafeRawBufferPointer)

    /// The write queue crossed the high-water mark (`isWritable == false`: stop producing, or close a slow
    /// consumer) or drained to the low-water mark (`isWritable == true`: resume).
    func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool)

    /// The peer finished sending (it half-closed or closed). The connection can still write. The default closes
    /// the connection gracefully.
    func connectionDidReachEndOfInput(_ connection: TCPConnection)

    /// The idle timer armed with `armIdleTimer(_:)` expired. The default closes the connection gracefully.
    func connectionIdleTimeoutFired(_ connection: TCPConnection)

    /// The connection is closed and its descriptor released; called exactly once. `error` is nil after a clean
    /// close (`close()`, or end of input handled by closing) and after `abort()`; otherwise it says what failed
    /// (reset by peer, write-queue overflow, event-loop shutdown...).
    func connectionDidClose(_ connection: TCPConnection, error: IOError?)
}

extension TCPConnectionHandler {
    /// Default: closes gracefully once the peer has stopped sending.
    package func connectionDidReachEndOfInput(_ connection: TCPConnection) {
        connection.close()
    }

    /// Default: closes gracefully when the idle timer fires.
    package func connectionIdleTimeoutFired(_ connection: TCPConnection) {
        connection.close()
    }

    /// Default: ignores writability changes.
    package func connectionWritabilityChanged(_ connection: TCPConnection, isWritable: Bool) {}
}
