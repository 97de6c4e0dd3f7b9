#if canImport(CCrypto)
import CCrypto
#endif

/// Cryptographically secure random bytes: OpenSSL's `RAND_bytes` on Linux, the system
/// generator (`arc4random` family) on Apple platforms.
///
/// Stateless and thread-safe; use an instance where a ``RandomByteSource`` is injected.
public struct SecureRandom: RandomByteSource {
    /// Creates a handle on the system's secure generator.
    public init() {}

    /// Returns `count` cryptographically secure random bytes, like the static `bytes(count:)`.
    public func bytes(count: Int) -> [UInt8] {
        Self.bytes(count: count)
    }

    /// Returns `count` cryptographically secure random bytes. Traps if the system generator
    /// fails, since continuing with predictable bytes would be a silent security failure.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes: count must not be negative")
        guard count > 0 else { return [] }
        #if canImport(CCrypto)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let status = RAND_bytes(buffer.baseAddress, Int32(count))
            precondition(status == 1, "SecureRandom: RAND_bytes failed; the system has no entropy source")
            initialized = count
        }
        #else
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        #endif
    }
}
