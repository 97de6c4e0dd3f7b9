import Testing
import TandemWire
@testable import TandemServer

/// The retry schedule's bounds, and what logs show of an endpoint.
@Suite struct WebhookPolicyTests {
    @Test("the bound doubles from the base up to the cap, and a wait never exceeds its bound")
    func boundsDoubleUpToTheCap() {
        let policy = WebhookRetryPolicy()
        #expect((1...12).map { policy.backoff.bound(afterFailures: $0) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 600, 600].map { Duration.seconds($0) })
        #expect(policy.backoff.bound(afterFailures: 10_000) == .seconds(600), "no overflow however many failures")
        #expect(WebhookRetryPolicy(base: .zero, cap: .zero).backoff.bound(afterFailures: 3) == .milliseconds(1), "at least a millisecond")
        var random = RandomBytes(source: SecureRandom())
        for failures in 1...20 {
            let bound = policy.backoff.bound(afterFailures: failures).totalMilliseconds
            for _ in 0..<50 { #expect((0...bound).contains(policy.delay(afterFailures: failures, using: &random))) }
        }
    }

    @Test("logs show an endpoint without its credentials or query")
    func endpointsAreRedactedInLogs() {
        #expect(WebhookDispatcher.redacted("https://user:pass@hooks.example.com:8443/tandem?token=abc#x") == "https://hooks.example.com:8443/tandem")
        #expect(WebhookDispatcher.redacted("http://127.0.0.1:9000/hook") == "http://127.0.0.1:9000/hook")
    }
}
