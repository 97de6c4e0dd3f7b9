import Testing
@testable import TandemProtocol

@Suite struct TokenBucketTests {
    let second: Int64 = 1_000_000_000

    /// How many of `count` messages at `now` the bucket accepts.
    private func accepted(_ count: Int, _ bucket: inout TokenBucket, now: Int64) -> Int {
        (0..<count).reduce(0) { total, _ in total + (bucket.take(now: now) ? 1 : 0) }
    }

    @Test func startsFullAndAllowsTheBurstThenRefuses() {
        var bucket = TokenBucket(rate: 60, burst: 120, now: 0)
        #expect(accepted(121, &bucket, now: 0) == 120)
    }

    @Test func refillsAtTheRateUpToTheBurst() {
        var bucket = TokenBucket(rate: 60, burst: 120, now: 0)
        _ = accepted(120, &bucket, now: 0)
        #expect(accepted(1, &bucket, now: second / 120) == 0) // half a token
        #expect(accepted(2, &bucket, now: second / 60) == 1)  // one token
        let refilled = bucket.available(now: 100 * second)
        #expect(refilled == 120)
    }

    @Test func sustainedRateAtTheLimitIsAccepted() {
        // A burst of one leaves no slack: only the refill rate carries the sender.
        var bucket = TokenBucket(rate: 60, burst: 1, now: 0)
        // 60 messages per second for 10 seconds, evenly spaced in whole nanoseconds: never refused.
        let total = (0..<600).reduce(0) { total, index in total + accepted(1, &bucket, now: Int64(index) * second / 60) }
        #expect(total == 600)
        // One more at the same instant as the last is over the rate.
        #expect(accepted(1, &bucket, now: 599 * second / 60) == 0)
    }

    @Test func reportsTheDelayUntilTheNextToken() {
        var bucket = TokenBucket(rate: 10, burst: 1, now: 0)
        let before = bucket.delayUntilAvailable(now: 0)
        #expect(before == 0)
        #expect(accepted(1, &bucket, now: 0) == 1)
        let full = bucket.delayUntilAvailable(now: 0)
        let half = bucket.delayUntilAvailable(now: second / 20)
        #expect(full == second / 10)
        #expect(half == second / 20)
    }

    @Test func zeroRateIsUnlimited() {
        var bucket = TokenBucket(rate: 0, burst: 1, now: 0)
        #expect(bucket.isUnlimited)
        #expect(accepted(10_000, &bucket, now: 0) == 10_000)
    }

    @Test func aClockSteppingBackDoesNotRemoveTokens() {
        var bucket = TokenBucket(rate: 1, burst: 2, now: 10 * second)
        #expect(accepted(1, &bucket, now: 10 * second) == 1)
        #expect(accepted(2, &bucket, now: 5 * second) == 1)
        #expect(accepted(1, &bucket, now: 11 * second) == 1)
    }
}
