import TandemSynchronization

/// A Prometheus-style histogram with fixed upper bounds, recorded lock-free from any thread.
///
/// Observations are stored per bucket (not cumulatively) so that recording touches one bucket;
/// cumulative counts are computed when the histogram is rendered.
public final class Histogram: Sendable {
    /// Upper bounds of the buckets, ascending; an implicit `+Inf` bucket follows.
    public let bounds: [Double]
    // One counter object per bucket: `AtomicValue` is not copyable, so it cannot live in an array.
    private let buckets: [Counter]
    private let count = AtomicValue<Int>(0)
    // The sum in nanounits, so that it can be accumulated atomically as an integer.
    private let sumNanos = AtomicValue<Int>(0)

    /// Creates a histogram with the given ascending upper bounds.
    public init(bounds: [Double]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "histogram bounds must ascend")
        self.bounds = bounds
        buckets = (0...bounds.count).map { _ in Counter() }
    }

    /// Records one observation (e.g. seconds of commit latency).
    public func observe(_ value: Double) {
        var index = bounds.count
        for (candidate, bound) in bounds.enumerated() where value <= bound {
            index = candidate
            break
        }
        buckets[index].increment()
        count.add(1, ordering: .relaxed)
        sumNanos.add(Int((value * 1e9).rounded()), ordering: .relaxed)
    }

    /// A consistent-enough snapshot: cumulative counts per bound (then `+Inf`), total count, sum.
    public func snapshot() -> (cumulative: [Int], count: Int, sum: Double) {
        var running = 0
        var cumulative: [Int] = []
        cumulative.reserveCapacity(buckets.count)
        for bucket in buckets {
            running += bucket.value
            cumulative.append(running)
        }
        return (cumulative, running, Double(sumNanos.load(ordering: .relaxed)) / 1e9)
    }
}
