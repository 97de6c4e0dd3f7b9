/// Per-connection settings: write-queue bounds and the close bound. Plain `Sendable` data.
public struct TCPConnectionConfiguration: Sendable, Equatable {
    /// When queued-but-unwritten bytes exceed this, the connection becomes not writable and the handler is told.
    public var highWaterMark: Int
    /// When queued bytes fall to this or below after being over the high-water mark, the connection becomes
    /// writable again and the handler is told.
    public var lowWaterMark: Int
    /// A write that would queue more than this is dropped and the connection is aborted with
    /// `IOError.writeQueueOverflow`: memory per connection stays bounded even if the owner ignores the high-water mark.
    /// A single larger write into an empty queue is accepted, and the limit then applies behind it (see
    /// `TCPConnection.write(_:)`).
    public var maxQueuedBytes: Int
    /// How long a graceful `close()` may take to flush queued bytes and see the peer's end of stream before
    /// the connection is dropped.
    public var closeTimeout: Duration
    /// Whether to disable Nagle's algorithm (`TCP_NODELAY`), the right choice for small interactive messages.
    public var noDelay: Bool

    /// Defaults: high water 1 MiB, low water 256 KiB, hard limit 4 MiB, close bound 5 s, `TCP_NODELAY` on.
    public init(
        highWaterMark: Int = 1 << 20,
        lowWaterMark: Int = 1 << 18,
        maxQueuedBytes: Int = 4 << 20,
        closeTimeout: Duration = .seconds(5),
        noDelay: Bool = true
    ) {
        precondition(lowWaterMark <= highWaterMark && highWaterMark <= maxQueuedBytes,
                     "write marks must satisfy low ≤ high ≤ maxQueuedBytes")
        self.highWaterMark = highWaterMark
        self.lowWaterMark = lowWaterMark
        self.maxQueuedBytes = maxQueuedBytes
        self.closeTimeout = closeTimeout
        self.noDelay = noDelay
    }
}
