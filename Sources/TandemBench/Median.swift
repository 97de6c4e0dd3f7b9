extension Array where Element == Double {
    /// The median of the samples (the mean of the two middle ones for an even count; 0 when empty).
    /// Benchmarks report medians because a shared machine adds outliers in one direction only.
    var median: Double {
        let sorted = self.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}

extension Array where Element == Double {
    /// The `fraction` quantile (0…1) by the nearest-rank method: the smallest sample with at least that
    /// share of the samples at or below it (0 when empty). `percentile(0.99)` is the p99.
    func percentile(_ fraction: Double) -> Double {
        let sorted = self.sorted()
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }
}

extension Array {
    /// The sample whose `key` is the median (the lower middle one for an even count), so that
    /// numbers measured together in one run are reported together.
    func median(by key: (Element) -> Double) -> Element {
        precondition(!isEmpty, "no samples")
        return sorted { key($0) < key($1) }[(count - 1) / 2]
    }
}
