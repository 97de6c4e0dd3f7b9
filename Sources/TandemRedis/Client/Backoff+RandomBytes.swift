import TandemKit
import TandemWire

extension Backoff {
    /// The wait after the `failures`-th failure in a row, its jitter from 53 bits of `random` (a unit
    /// uniform in `0..<1`): the Redis clients draw from the same injected byte source as the rest of the wire.
    package func delay(afterFailures failures: Int, random: any RandomByteSource) -> Duration {
        let bits = random.bytes(count: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return delay(afterFailures: failures, unit: Double(bits >> 11) * 0x1p-53)
    }
}
