import TandemProtocol

/// The outcome of a write of the HTTP API.
package enum HTTPWriteOutcome: Sendable, Equatable {
    /// Applied, and durable, at `rev`.
    case applied(rev: Int64)
    /// Not applied: the room is at `rev`, not at the `ifRev` the write required.
    case conflict(rev: Int64)
    /// Not applied: the ops were refused, with the protocol's reject code.
    case refused(RejectCode, message: String)
    /// This instance of the room stopped serving (unloaded or broken): look it up again.
    case retired
    /// Not applied, or not known to be: the server could not finish it.
    case failed(String)
}
