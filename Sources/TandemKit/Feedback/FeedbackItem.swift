/// What a `FeedbackPresenter` is asked to show or hide: the message, its ticket, and how long it
/// will stay (for front ends that draw a progress ring).
public struct FeedbackItem: Sendable, Hashable {
    /// The queue's handle for this message.
    public var ticket: FeedbackTicket
    /// The message itself.
    public var message: FeedbackMessage
    /// How long it stays fully visible; `nil` for a HUD that stays until replaced or dismissed.
    public var displayDuration: Duration?

    /// Creates an item.
    public init(ticket: FeedbackTicket, message: FeedbackMessage, displayDuration: Duration?) {
        self.ticket = ticket
        self.message = message
        self.displayDuration = displayDuration
    }
}
