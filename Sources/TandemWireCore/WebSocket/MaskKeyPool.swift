import TandemSynchronization

/// Masking keys drawn from a random source in batches, handed out one per frame.
///
/// A client masks every frame with a fresh key (RFC 6455 §5.3). Asking the secure generator for four bytes per
/// frame costs a library call with its own locking and an array per frame; drawing `batch` keys at once makes
/// that cost per batch. The keys are exactly as unpredictable as the source's bytes: each byte is used once.
/// Thread-safe (one lock, held for a few loads).
final class MaskKeyPool: Sendable {
    private struct State {
        var keys: [UInt32] = []
        var next = 0
    }

    private let random: any RandomByteSource
    private let batch: Int
    private let state = Locked(State())

    /// A pool that draws `batch` keys (4 × `batch` bytes) from `random` whenever it runs empty.
    init(random: any RandomByteSource, batch: Int = 64) {
        precondition(batch > 0, "MaskKeyPool: batch must be positive")
        self.random = random
        self.batch = batch
    }

    /// The next key: the big-endian value of four consecutive bytes of the source.
    func nextKey() -> UInt32 {
        state.withLock { state in
            if state.next == state.keys.count {
                let bytes = random.bytes(count: 4 * batch)
                state.keys.removeAll(keepingCapacity: true)
                for index in stride(from: 0, to: bytes.count - 3, by: 4) {
                    state.keys.append(
                        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
                            | UInt32(bytes[index + 3]))
                }
                state.next = 0
            }
            defer { state.next += 1 }
            return state.keys[state.next]
        }
    }
}
