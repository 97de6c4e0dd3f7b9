/// The bounds a patch must respect, announced to clients in `welcome.limits`.
public struct PatchLimits: Sendable, Hashable {
    /// The most ops one patch may carry (default 100).
    public var maxOps: Int
    /// The largest serialized document, in bytes, a patch may produce (default 1 MiB).
    public var maxDocument: Int
    /// The deepest nesting a patch may create (default 32): a `set` of a value `d` containers deep at a
    /// path of `k` tokens lands at depth `k + d`, and the root object itself is depth 1. Presence and
    /// signal data obey the same bound. See `deepestAllowed` for why there is a ceiling.
    public var maxDepth: Int

    /// The default document depth. Page state rarely nests past a dozen levels; 32 leaves every
    /// message that carries a value at least 27 levels of headroom in a parser that stops at 64 (this
    /// package's own, and the common default of other JSON libraries).
    public static let defaultMaxDepth = 32

    /// The most containers a protocol message wraps around a value it carries: a `welcome` replay
    /// holds `{"replay":[{"ops":[{"value":…}]}]}`, five levels around the value.
    public static let envelopeDepth = 5

    /// The largest `maxDepth` a server may announce: deeper, a `welcome` replaying a root `set` would
    /// nest past `JSONValue.defaultMaxDepth` and a client could not read it.
    public static let deepestAllowed = JSONValue.defaultMaxDepth - envelopeDepth

    /// No limit at all: for patches that were checked when they were first applied (replay from
    /// storage, a cluster's log), whose limits may have shrunk since.
    public static let unlimited = PatchLimits(maxOps: .max, maxDocument: .max, maxDepth: .max)

    /// Creates limits; the defaults are protocol v1's defaults.
    public init(maxOps: Int = 100, maxDocument: Int = 1 << 20, maxDepth: Int = PatchLimits.defaultMaxDepth) {
        self.maxOps = maxOps
        self.maxDocument = maxDocument
        self.maxDepth = maxDepth
    }

    /// Refuses a patch of `count` ops when that is more than `maxOps` (`too_many_ops`): the one check of
    /// the op count, made by `Document.apply` and by a cluster's sequencer for ops no node applied.
    public func admitOpCount(_ count: Int) throws(PatchError) {
        guard count <= maxOps else { throw .tooManyOps(count: count, limit: maxOps) }
    }

    /// The depth of ephemeral `data` (presence, a signal's payload) when it nests deeper than
    /// `maxDepth`, `nil` when it fits.
    public func excessDepth(of data: JSONValue) -> Int? {
        data.depth(exceeding: maxDepth) == nil ? data.depth : nil
    }
}
