import Testing
import TandemKit

@Suite struct BackoffTests {
    @Test func theBoundGrowsByTheMultiplierUntilTheCap() {
        let backoff = Backoff(base: .milliseconds(500), cap: .seconds(10))
        #expect((1...7).map { backoff.bound(afterFailures: $0) } == [0.5, 1, 2, 4, 8, 10, 10].map { Duration.seconds($0) })
        #expect(backoff.bound(afterFailures: 10_000) == .seconds(10), "no overflow however many failures")
        #expect(backoff.bound(afterFailures: -3) == .milliseconds(500), "fewer than one failure counts as the first")
        let tripling = Backoff(base: .seconds(1), multiplier: 3, cap: .seconds(100))
        #expect((1...6).map { tripling.bound(afterFailures: $0) } == [1, 3, 9, 27, 81, 100].map { Duration.seconds($0) })
    }

    @Test func aCapBelowTheBaseBoundsEveryWait() {
        let backoff = Backoff(base: .seconds(2), cap: .seconds(1))
        #expect(backoff.bound(afterFailures: 1) == .seconds(1))
        #expect(backoff.delay(afterFailures: 1, unit: 0) == .seconds(1))
    }

    @Test func theJitterTakesItsFractionOfTheBoundAway() {
        let full = Backoff(base: .seconds(1), cap: .seconds(8))
        #expect(full.delay(afterFailures: 2, unit: 0) == .seconds(2))
        #expect(full.delay(afterFailures: 2, unit: 0.75) == .milliseconds(500))
        let half = Backoff(base: .seconds(1), cap: .seconds(8), jitter: 0.5)
        #expect(half.delay(afterFailures: 2, unit: 0.5) == .milliseconds(1_500))
        let none = Backoff(base: .seconds(1), cap: .seconds(8), jitter: 0)
        #expect(none.delay(afterFailures: 3, unit: 0.9) == .seconds(4))
        #expect(full.delay(afterFailures: 1, unit: 7) == .zero, "a unit out of range is clamped")
    }

    @Test func nonsenseValuesAreClamped() {
        let backoff = Backoff(base: .seconds(-1), multiplier: 0.1, cap: .seconds(-5), jitter: 7)
        #expect(backoff.base == .zero && backoff.cap == .zero && backoff.multiplier == 1 && backoff.jitter == 1)
        #expect(Backoff(base: .seconds(1), cap: .seconds(Int64.max)).bound(afterFailures: 200) == .nanoseconds(Int64.max),
                "a cap of centuries saturates")
        #expect(Backoff(base: .zero, cap: .seconds(1)).bound(afterFailures: .max) == .zero, "a zero base stays zero, at once")
    }

    @Test func fullJitterSpreadsWaitsEvenlyOverTheWholeRangeAndTheSeedReplaysThem() {
        let backoff = Backoff(base: .seconds(1), cap: .seconds(8))
        var generator = SeededRandom(seed: 42)
        for failures in 1...6 {
            let bound = backoff.bound(afterFailures: failures)
            let draws = (0..<2_000).map { _ in backoff.delay(afterFailures: failures, using: &generator) }
            #expect(draws.allSatisfy { $0 > .zero && $0 <= bound })
            // Uniform over the whole range: about a quarter falls in each quarter.
            for quarter in 0..<4 {
                let low = bound * quarter / 4, high = bound * (quarter + 1) / 4
                let share = Double(draws.filter { $0 > low && $0 <= high }.count) / Double(draws.count)
                #expect(share > 0.2 && share < 0.3, "failure \(failures) quarter \(quarter): \(share)")
            }
        }
        var first = SeededRandom(seed: 7), second = SeededRandom(seed: 7)
        #expect((1...5).map { backoff.delay(afterFailures: $0, using: &first) } == (1...5).map { backoff.delay(afterFailures: $0, using: &second) })
    }
}
