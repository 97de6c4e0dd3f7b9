/// A loop-bound writer that accepts pre-encoded shared bytes queued from another thread with
/// `EventLoop.enqueue(_:to:)`; `writeSharedFrame` is called on the target's loop thread, in submission order
/// with the loop's other submitted work.
protocol SharedFrameTarget: AnyObject, Sendable {
    /// Writes `frame` (on the loop thread); dropped when the target can no longer send.
    func writeSharedFrame(_ frame: SharedBytes)
}
