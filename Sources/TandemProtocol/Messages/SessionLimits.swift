/// The limits the server enforces on a connection (`welcome.limits`).
public struct SessionLimits: Sendable, Hashable {
    /// Sustained messages per second the server accepts (token-bucket refill rate, default 120: a
    /// client pacing at 80 % of it sends a scroll position at every frame of a 60 Hz display with room
    /// for everything else); 0 means the server enforces no rate limit.
    public var rate: Double
    /// Token-bucket capacity: messages that may arrive in a burst (default 240, two seconds of the rate).
    public var burst: Int
    /// The largest message in bytes (default 64 KiB).
    public var maxMessage: Int
    /// The most ops per patch (default 100).
    public var maxOps: Int
    /// The largest serialized document in bytes (default 1 MiB).
    public var maxDocument: Int
    /// The deepest nesting of the document, presence and signal data (default 32; see
    /// `PatchLimits.maxDepth`). A server that announces none is read as `PatchLimits.deepestAllowed`,
    /// the most any client can read back.
    public var maxDepth: Int

    /// Creates limits; the defaults are protocol v1's defaults.
    public init(rate: Double = 120, burst: Int = 240, maxMessage: Int = 64 << 10, maxOps: Int = 100, maxDocument: Int = 1 << 20,
                maxDepth: Int = PatchLimits.defaultMaxDepth) {
        self.rate = rate
        self.burst = burst
        self.maxMessage = maxMessage
        self.maxOps = maxOps
        self.maxDocument = maxDocument
        self.maxDepth = maxDepth
    }

    /// The patch-related part, as `Document.apply` takes it.
    public var patchLimits: PatchLimits {
        PatchLimits(maxOps: maxOps, maxDocument: maxDocument, maxDepth: maxDepth)
    }
}
