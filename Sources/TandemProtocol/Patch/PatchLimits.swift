/// The bounds a patch must respect, announced to clients in `welcome.limits`.
public struct PatchLimits: Sendable, Hashable {
    /// The most ops one patch may carry (default 100).
    public var maxOps: Int
    /// The largest serialized document, in bytes, a patch may produce (default 1 MiB).
    public var maxDocument: Int

    /// Creates limits; the defaults are protocol v1's defaults.
    public init(maxOps: Int = 100, maxDocument: Int = 1 << 20) {
        self.maxOps = maxOps
        self.maxDocument = maxDocument
    }
}
