import TandemWire

extension FaultProxy {
    /// What a `FaultProxy` does to the traffic it relays. Plain `Sendable` data; change it on a running proxy
    /// with `FaultProxy.setFaults(_:)`.
    ///
    /// Negative durations count as zero; a period of zero or less counts as "never".
    public struct Faults: Sendable, Equatable, CustomStringConvertible {
        /// One-way delay added to every chunk, in each direction.
        public var latency: Duration
        /// Extra one-way delay per chunk, drawn uniformly from `0...jitter` with the proxy's random source.
        /// Chunks of one connection keep their order: a chunk never overtakes an earlier one.
        public var jitter: Duration
        /// Cap per direction per connection, in kilobytes (1 KB = 1000 bytes) per second; 0 is unlimited.
        public var bandwidthKilobytesPerSecond: Int
        /// Every this often, reset (TCP RST on both sides) every connection open at that moment.
        public var dropEvery: Duration?
        /// Every this often, blackhole every connection open at that moment (see `FaultProxy.blackholeAll()`).
        public var blackholeEvery: Duration?
        /// Periodic stalls, as loss recovery on a weak Wi-Fi link causes: every `stallEvery` (counted on the
        /// monotonic clock), for `stallLength`, nothing comes out of the link; what falls due meanwhile comes
        /// out, in order, when the stall ends. Nothing is lost. Nil: no stalls.
        public var stallEvery: Duration?
        /// How long each stall lasts (see `stallEvery`).
        public var stallLength: Duration

        /// Creates fault settings; the defaults inject nothing.
        public init(
            latency: Duration = .zero,
            jitter: Duration = .zero,
            bandwidthKilobytesPerSecond: Int = 0,
            dropEvery: Duration? = nil,
            blackholeEvery: Duration? = nil,
            stallEvery: Duration? = nil,
            stallLength: Duration = .zero
        ) {
            self.latency = latency
            self.jitter = jitter
            self.bandwidthKilobytesPerSecond = bandwidthKilobytesPerSecond
            self.dropEvery = dropEvery
            self.blackholeEvery = blackholeEvery
            self.stallEvery = stallEvery
            self.stallLength = stallLength
        }

        /// No faults: a plain relay.
        public static let none = Faults()

        /// The cap in bytes per second; 0 is unlimited.
        public var bandwidthBytesPerSecond: Int {
            let (product, overflow) = max(0, bandwidthKilobytesPerSecond).multipliedReportingOverflow(by: 1000)
            return overflow ? .max : product
        }

        /// `latency` in nanoseconds (0 when negative).
        var latencyNanoseconds: UInt64 { Self.nanoseconds(latency) }

        /// `jitter` in nanoseconds (0 when negative).
        var jitterNanoseconds: UInt64 { Self.nanoseconds(jitter) }

        /// `dropEvery` when it is a positive period.
        var dropPeriod: Duration? { Self.positive(dropEvery) }

        /// `blackholeEvery` when it is a positive period.
        var blackholePeriod: Duration? { Self.positive(blackholeEvery) }

        /// The stalls in nanoseconds, when both the period and the length are positive.
        var stall: LinkShaper.Stall? {
            guard let period = Self.positive(stallEvery), stallLength > .zero else { return nil }
            return LinkShaper.Stall(period: Self.nanoseconds(period), length: Self.nanoseconds(stallLength))
        }

        /// True when chunks pass without delay or pacing, so they can be forwarded at once.
        var isTransparent: Bool {
            latencyNanoseconds == 0 && jitterNanoseconds == 0 && bandwidthBytesPerSecond == 0 && stall == nil
        }

        /// What is injected, e.g. `latency 50 ms, jitter 10 ms, bandwidth 100 KB/s, drop every 5 s`, or
        /// `no faults`.
        public var description: String {
            var parts: [String] = []
            if latencyNanoseconds > 0 { parts.append("latency \(Self.text(latency))") }
            if jitterNanoseconds > 0 { parts.append("jitter \(Self.text(jitter))") }
            if bandwidthBytesPerSecond > 0 { parts.append("bandwidth \(bandwidthKilobytesPerSecond) KB/s") }
            if let dropPeriod { parts.append("drop every \(Self.text(dropPeriod))") }
            if let blackholePeriod { parts.append("blackhole every \(Self.text(blackholePeriod))") }
            if let stallEvery = Self.positive(stallEvery), stall != nil { parts.append("stall \(Self.text(stallLength)) every \(Self.text(stallEvery))") }
            return parts.isEmpty ? "no faults" : parts.joined(separator: ", ")
        }

        /// Negative durations can carry a zero `seconds` and negative `attoseconds` component: clamp first.
        private static func nanoseconds(_ duration: Duration) -> UInt64 {
            duration > .zero ? MonotonicTime.nanoseconds(duration) : 0
        }

        private static func positive(_ period: Duration?) -> Duration? {
            guard let period, period > .zero else { return nil }
            return period
        }

        /// Whole milliseconds below a second, otherwise seconds with up to three decimals.
        private static func text(_ duration: Duration) -> String {
            let milliseconds = nanoseconds(duration) / 1_000_000
            if milliseconds < 1000 { return "\(milliseconds) ms" }
            let seconds = milliseconds / 1000
            let rest = milliseconds % 1000
            if rest == 0 { return "\(seconds) s" }
            var fraction = String(rest)
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return "\(seconds).\(fraction) s"
        }
    }
}
