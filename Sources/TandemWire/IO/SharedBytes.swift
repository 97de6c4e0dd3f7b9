/// An immutable byte buffer that many connections can queue for writing without copying it per connection
/// (e.g. one encoded message fanned out to every member of a room).
///
/// Queueing a `SharedBytes` retains it; the bytes are never copied or mutated, so one instance may be written
/// to connections on different loops at the same time.
package final class SharedBytes: Sendable {
    /// The bytes, fixed at creation.
    package let bytes: [UInt8]

    /// Wraps `bytes` (no copy: arrays share their storage until mutated, and this one never is).
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes.
    package var count: Int { bytes.count }
}
