import Testing
@testable import TandemRedis

@Suite("Redis endpoint and backoff")
struct RedisEndpointTests {
    @Test("redis:// URLs parse to host and port")
    func parsesURLs() throws {
        #expect(try RedisEndpoint(url: "redis://127.0.0.1:7000") == RedisEndpoint(host: "127.0.0.1", port: 7000))
        #expect(try RedisEndpoint(url: "redis://cache.internal/") == RedisEndpoint(host: "cache.internal", port: 6379))
        #expect(try RedisEndpoint(url: "redis://[::1]:6380") == RedisEndpoint(host: "::1", port: 6380))
        #expect(RedisEndpoint(host: "::1", port: 6380).description == "[::1]:6380")
    }

    @Test("bad URLs are rejected with the reason", arguments: [
        ("http://x:1", "the scheme must be redis://"),
        ("rediss://x:1", "TLS (rediss://) is not supported"),
        ("redis://:1", "the host is missing"),
        ("redis://x:0", "the port must be a number from 1 to 65535"),
        ("redis://x:abc", "the port must be a number from 1 to 65535"),
        ("redis://user:pw@x:1", "credentials are not supported"),
        ("redis://x:1/2", "a database number is not supported"),
    ])
    func rejectsBadURLs(url: String, reason: String) {
        #expect(throws: RedisError.invalidURL(url, reason: reason)) { try RedisEndpoint(url: url) }
        #expect(RedisError.invalidURL(url, reason: reason).description.contains("expected redis://HOST:PORT"))
    }

    @Test("the default backoff doubles from 50 ms up to 5 s; 53 random bits make the jitter's unit")
    func backoff() {
        let backoff = RedisClient.Configuration.defaultBackoff
        #expect((1...9).map { backoff.bound(afterFailures: $0) } == [50, 100, 200, 400, 800, 1_600, 3_200, 5_000, 5_000].map { Duration.milliseconds($0) })
        #expect(backoff.delay(afterFailures: 3, random: RedisClientTests.HalfRandom()) == .milliseconds(100))
    }

    @Test("a deployment is one server, or a Redis Cluster named by one or more seeds; several URLs need the cluster")
    func deployments() throws {
        #expect(try RedisDeployment(urls: "redis://h:1", cluster: false) == .server(RedisEndpoint(host: "h", port: 1)))
        #expect(try RedisDeployment(urls: "redis://a:7000, redis://b:7001", cluster: true)
                == .cluster(seeds: [RedisEndpoint(host: "a", port: 7000), RedisEndpoint(host: "b", port: 7001)]))
        #expect(try RedisDeployment(urls: "redis://a:7000", cluster: true).description == "Redis Cluster via a:7000")
        #expect(throws: RedisError.self) { try RedisDeployment(urls: "redis://a:1,redis://b:2", cluster: false) }
        #expect(throws: RedisError.self) { try RedisDeployment(urls: "redis://a:1,", cluster: true) }
    }

    @Test("scripts are named by the SHA-1 of their source")
    func scriptDigest() {
        #expect(RedisScript("return 1").sha1 == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    }
}
