import Testing
import TandemWire
@testable import TandemServer

/// The retry schedule's bounds, and what logs show of an endpoint.
@Suite struct WebhookPolicyTests {
    @Test("the bound doubles from the base up to the cap, and a wait never exceeds its bound")
    func boundsDoubleUpToTheCap() {
        let policy = WebhookRetryPolicy(baseMilliseconds: 1_000, capMilliseconds: 600_000)
        #expect((1...12).map { policy.bound(afterFailures: $0) }
                == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 600_000, 600_000])
        #expect(policy.bound(afterFailures: 10_000) == 600_000, "no overflow however many failures")
        var random = RandomBytes(source: SecureRandom())
        for failures in 1...20 {
            for _ in 0..<50 { #expect((0...policy.bound(afterFailures: failures)).contains(policy.delay(afterFailures: failures, using: &random))) }
        }
    }

    @Test("logs show an endpoint without its credentials or query")
    func endpointsAreRedactedInLogs() {
        #expect(WebhookDispatcher.redacted("https://user:pass@hooks.example.com:8443/tandem?token=abc#x") == "https://hooks.example.com:8443/tandem")
        #expect(WebhookDispatcher.redacted("http://127.0.0.1:9000/hook") == "http://127.0.0.1:9000/hook")
    }
}
