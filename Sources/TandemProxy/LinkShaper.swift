import TandemWire

/// The timing model of one direction of an impaired link: when each chunk that entered it comes out.
///
/// A chunk first waits for the link to be free and takes `bytes / rate` to pass (the bandwidth cap), then
/// travels for `latency + jitter`. Delivery times never decrease, so a chunk with a small jitter draw waits
/// behind an earlier one with a large draw: the link delays but never reorders, as TCP requires. A chunk
/// that would come out during a stall comes out when the stall ends.
///
/// Pure value type over monotonic nanosecond readings, so it is tested without clocks or sockets.
struct LinkShaper: Sendable, Equatable {
    /// Periodic stalls: from every multiple of `period` (on the same clock as the arrivals), for `length`.
    struct Stall: Sendable, Equatable {
        var period: UInt64
        var length: UInt64

        /// `instant`, or the end of the stall it falls in.
        func release(_ instant: UInt64) -> UInt64 {
            guard period > 0, length > 0 else { return instant }
            let into = instant % period
            return into < length ? LinkShaper.adding(instant - into, min(length, period)) : instant
        }
    }

    /// When the link finishes passing the last chunk given to it (only advances while a cap is set).
    private(set) var linkFreeAt: UInt64 = 0
    /// The delivery time handed out last; the next one is never earlier.
    private(set) var lastDelivery: UInt64 = 0

    /// Returns the instant (nanoseconds, same clock as `arrival`) at which a chunk of `bytes` bytes that
    /// arrived at `arrival` must be handed to the other side.
    /// - Parameters:
    ///   - latency: the fixed one-way delay in nanoseconds.
    ///   - jitter: this chunk's extra delay in nanoseconds (already drawn).
    ///   - bytesPerSecond: the cap; 0 means unlimited.
    ///   - stall: periodic stalls, if any.
    mutating func deliveryTime(bytes: Int, arrival: UInt64, latency: UInt64, jitter: UInt64, bytesPerSecond: Int, stall: Stall? = nil) -> UInt64 {
        var leftLink = arrival
        if bytesPerSecond > 0 {
            // No credit accumulates while idle: a link that was quiet starts passing bytes at arrival.
            let start = max(arrival, linkFreeAt)
            let (product, overflow) = UInt64(bytes).multipliedReportingOverflow(by: 1_000_000_000)
            let passing = overflow ? UInt64.max : product / UInt64(bytesPerSecond)
            leftLink = Self.adding(start, passing)
            linkFreeAt = leftLink
        }
        var delivery = max(Self.adding(Self.adding(leftLink, latency), jitter), lastDelivery)
        if let stall { delivery = stall.release(delivery) }
        lastDelivery = delivery
        return delivery
    }

    /// `a + b`, saturating at `UInt64.max` (absurd caps or delays must not trap).
    static func adding(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// The slice size that paces a capped link smoothly: about 10 ms worth of bytes, at least 1 KiB, so one
    /// 64 KiB read at a low cap trickles out instead of arriving in one lump.
    static func sliceSize(bytesPerSecond: Int, chunk: Int) -> Int {
        guard bytesPerSecond > 0 else { return max(chunk, 1) }
        return max(1024, bytesPerSecond / 100)
    }
}
