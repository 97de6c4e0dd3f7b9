import TandemWire

extension FaultProxy {
    /// A snapshot of what a `FaultProxy` has done so far. Each field is read atomically on its own; the
    /// snapshot as a whole is not a single instant.
    public struct Statistics: Sendable, Equatable {
        /// Client connections accepted since start.
        public var acceptedConnections: Int
        /// Connection pairs relaying now (client accepted and not yet fully closed).
        public var openConnections: Int
        /// Connection pairs reset by `resetAll()` or `dropEvery`.
        public var resetConnections: Int
        /// Connection pairs blackholed by `blackholeAll()` or `blackholeEvery`.
        public var blackholedConnections: Int
        /// Client connections closed because the target could not be reached.
        public var failedUpstreamConnections: Int
        /// Bytes handed to the other side, both directions together.
        public var forwardedBytes: Int
        /// Bytes read and not yet handed on (waiting out a delay, a bandwidth cap or a blackhole). Bounded by
        /// the proxy's `maxHeldBytes` per direction plus one read.
        public var heldBytes: Int
        /// Times the `dropEvery` timer fired.
        public var dropRounds: Int
        /// Times the `blackholeEvery` timer fired.
        public var blackholeRounds: Int
    }
}
