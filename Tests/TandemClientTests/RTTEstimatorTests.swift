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
