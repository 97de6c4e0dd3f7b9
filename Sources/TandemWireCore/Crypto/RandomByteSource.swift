/// A source of random bytes, injected wherever Tandem needs randomness (WebSocket keys and
/// masks, ids, secrets) so that tests can substitute a deterministic one.
///
/// Implementations must be safe to call from any thread.
public protocol RandomByteSource: Sendable {
    /// Returns `count` random bytes.
    func bytes(count: Int) -> [UInt8]
}
