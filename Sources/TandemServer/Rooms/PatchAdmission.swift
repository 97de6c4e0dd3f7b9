import TandemProtocol

/// The rules a patch passes before any sequencer orders it — a viewer changes nothing, a client's seq
/// starts at 1 — written once for this server's rooms and the cluster's.
package enum PatchAdmission {
    /// The error a patch from `role` numbered `seq` is refused with, or nil when it may be sequenced.
    package static func refusal(role: Role, seq: Int64) -> PatchError? {
        guard role != .viewer else { return .forbidden(reason: "a viewer may not change the room") }
        guard seq >= 1 else { return .invalidOp(op: 0, reason: "seq must be 1 or more") }
        return nil
    }
}
