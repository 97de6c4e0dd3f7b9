import Testing
@testable import TandemBench

@Suite struct BenchStatisticsTests {
    @Test func medianTakesTheMiddleOrTheMeanOfTheTwoMiddleSamples() {
        #expect([3.0, 1, 2].median == 2)
        #expect([4.0, 1, 3, 2].median == 2.5)
        #expect([Double]().median == 0)
    }

    @Test func percentilesUseTheNearestRank() {
        let samples = (1...100).map(Double.init).shuffled()
        #expect(samples.percentile(0.5) == 50)
        #expect(samples.percentile(0.99) == 99)
        #expect(samples.percentile(1) == 100)
        #expect(samples.percentile(0) == 1)
        #expect([7.0].percentile(0.99) == 7)
        #expect([Double]().percentile(0.5) == 0)
        // With few samples the p99 is the largest one, never an interpolation beyond the data.
        #expect([1.0, 2, 3].percentile(0.99) == 3)
    }
}
