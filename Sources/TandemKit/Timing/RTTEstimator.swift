/// Round-trip-time estimation per RFC 6298: smoothed RTT and RTT variance from ping/pong
/// samples (α = 1/8, β = 1/4, K = 4), and a retransmission-style timeout clamped to bounds.
///
/// The client uses the timeout as its pong deadline, so a connection on a slow link is not
/// declared dead too early and one on a fast link is not trusted too long. The same smoothing
/// estimates any interval's mean and deviation: `ScrollInterpolator` reads the gaps between
/// arriving scroll offsets with it.
public struct RTTEstimator: Sendable, Equatable {
    /// Smoothed round-trip time in seconds, `nil` before the first sample.
    public private(set) var smoothed: Double?
    /// Round-trip time variation in seconds, `nil` before the first sample.
    public private(set) var variation: Double?
    /// The most recent sample in seconds.
    public private(set) var latest: Double?
    /// Lower bound of `timeout`, seconds.
    public var minimumTimeout: Double
    /// Upper bound of `timeout`, seconds.
    public var maximumTimeout: Double
    /// Timeout used before any sample exists, seconds.
    public var initialTimeout: Double

    /// Creates an estimator with timeout bounds in seconds.
    public init(minimumTimeout: Double = 1, maximumTimeout: Double = 20, initialTimeout: Double = 5) {
        self.minimumTimeout = minimumTimeout
        self.maximumTimeout = maximumTimeout
        self.initialTimeout = initialTimeout
    }

    /// Adds one measured round trip (seconds). Negative samples are ignored.
    public mutating func add(sample: Double) {
        guard sample >= 0, sample.isFinite else { return }
        latest = sample
        if let smoothed, let variation {
            // RFC 6298 §2.3: update the variation with the old smoothed value first.
            self.variation = (1 - 0.25) * variation + 0.25 * abs(smoothed - sample)
            self.smoothed = (1 - 0.125) * smoothed + 0.125 * sample
        } else {
            smoothed = sample
            variation = sample / 2
        }
    }

    /// The deadline for an answer: SRTT + max(G, K·RTTVAR) clamped to the bounds (G = 10 ms clock
    /// granularity); `initialTimeout` before the first sample.
    public var timeout: Double {
        guard let smoothed, let variation else { return min(max(initialTimeout, minimumTimeout), maximumTimeout) }
        return min(max(smoothed + max(0.010, 4 * variation), minimumTimeout), maximumTimeout)
    }
}
