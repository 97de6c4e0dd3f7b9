/// Where a reconnecting client left off: the room history `epoch` it knew and the last `rev`
/// it had confirmed. Sent in `hello.resume`.
public struct ResumePoint: Sendable, Hashable {
    /// The epoch of the history the client's `rev` belongs to.
    public var epoch: String
    /// The last confirmed rev.
    public var rev: Int64

    /// Creates a resume point.
    public init(epoch: String, rev: Int64) {
        self.epoch = epoch
        self.rev = rev
    }
}
