/// Identifies one queued message, so it can be dismissed; callers whose identical messages were
/// coalesced share one ticket.
public struct FeedbackTicket: Sendable, Hashable, CustomStringConvertible {
    /// Unique within one `FeedbackQueue`, increasing in submission order.
    public let id: UInt64

    /// Creates a ticket (front ends and tests use it to build `FeedbackItem`s).
    public init(id: UInt64) { self.id = id }

    /// E.g. `#3`.
    public var description: String { "#\(id)" }
}
