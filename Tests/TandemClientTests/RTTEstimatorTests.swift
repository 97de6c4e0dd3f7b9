import Testing
import TandemKit
@testable import TandemClient

@Suite struct RTTEstimatorTests {
    @Test func firstSampleSetsSmoothedAndHalfVariation() {
        var estimator = RTTEstimator(minimumTimeout: 0, maximumTimeout: 100)
        estimator.add(sample: 0.2)
        #expect(estimator.smoothed == 0.2)
        #expect(estimator.variation == 0.1)
        #expect(abs(estimator.timeout - 0.6) < 1e-12) // 0.2 + 4 · 0.1
    }

    @Test func laterSamplesFollowRFC6298() {
        var estimator = RTTEstimator(minimumTimeout: 0, maximumTimeout: 100)
        estimator.add(sample: 0.2)
        estimator.add(sample: 0.4)
        // RTTVAR = 3/4 · 0.1 + 1/4 · |0.2 − 0.4| = 0.125; SRTT = 7/8 · 0.2 + 1/8 · 0.4 = 0.225
        #expect(abs(estimator.variation! - 0.125) < 1e-12)
        #expect(abs(estimator.smoothed! - 0.225) < 1e-12)
        #expect(abs(estimator.timeout - 0.725) < 1e-12)
        #expect(estimator.latest == 0.4)
    }

    @Test func timeoutIsClampedAndHasAnInitialValue() {
        var estimator = RTTEstimator(minimumTimeout: 1, maximumTimeout: 5, initialTimeout: 3)
        #expect(estimator.timeout == 3)
        estimator.add(sample: 0.001)
        #expect(estimator.timeout == 1)
        for _ in 0..<5 { estimator.add(sample: 30) }
        #expect(estimator.timeout == 5)
    }

    @Test func ignoresNegativeAndNonFiniteSamples() {
        var estimator = RTTEstimator()
        estimator.add(sample: -1)
        estimator.add(sample: .infinity)
        #expect(estimator.smoothed == nil)
    }
}

@Suite struct ReconnectBackoffTests {
    @Test func ceilingDoublesUntilTheCap() {
        let backoff = ReconnectBackoff(base: 0.5, cap: 10)
        #expect((0..<7).map { backoff.ceiling(attempt: $0) } == [0.5, 1, 2, 4, 8, 10, 10])
        #expect(backoff.ceiling(attempt: 10_000) == 10)
        #expect(backoff.ceiling(attempt: -3) == 0.5)
    }

    @Test func delaysStayWithinBoundsAndSpreadAcrossTheRange() {
        let backoff = ReconnectBackoff(base: 1, cap: 8)
        var generator = SeededRandom(seed: 42)
        for attempt in 0..<6 {
            let ceiling = backoff.ceiling(attempt: attempt)
            let draws = (0..<2_000).map { _ in backoff.delay(attempt: attempt, using: &generator) }
            #expect(draws.allSatisfy { $0 >= 0 && $0 <= ceiling })
            // Full jitter: uniform over the whole range, so about a quarter falls in each quarter.
            for quarter in 0..<4 {
                let low = ceiling * Double(quarter) / 4, high = ceiling * Double(quarter + 1) / 4
                let share = Double(draws.filter { $0 >= low && $0 < high }.count) / Double(draws.count)
                #expect(share > 0.2 && share < 0.3, "attempt \(attempt) quarter \(quarter): \(share)")
            }
        }
    }
}
