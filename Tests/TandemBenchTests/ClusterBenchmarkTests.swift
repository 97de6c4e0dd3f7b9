import Foundation
import Testing
import TandemTestSupport
@testable import TandemBench

/// The cluster deployments of `tandem bench relays`: kinds, command lines, spreading clients over nodes,
/// summed process statistics, the order checks and the `cluster.md` report.
@Suite struct ClusterBenchmarkTests {
    @Test func clusterKindsParseAndDescribeTheirDeployment() throws {
        let settings = try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SERVERS": "tandem,tandem-redis,tandem-redis-2,tandem-redis-2-volatile"])
        #expect(settings.servers == [.tandem, .tandemRedis, .tandemRedis2, .tandemRedis2Volatile])
        #expect(settings.includesCluster)
        let defaults = try RelayBenchmark.Settings(environment: [:])
        #expect(!defaults.includesCluster)
        #expect(RelayServerKind.tandemRedis.clusterNodes == 1 && RelayServerKind.tandemRedis2.clusterNodes == 2)
        #expect(RelayServerKind.tandemMemory.clusterNodes == 0 && !RelayServerKind.go.isCluster)
        #expect(RelayServerKind.tandemRedis2.redisPersistence == .alwaysFsync)
        #expect(RelayServerKind.tandemRedisVolatile.redisPersistence == RelayServerKind.RedisPersistence.none)
        #expect(RelayServerKind.tandem.redisPersistence == nil)
        #expect(RelayServerKind.allCases.filter { $0.isCluster }.allSatisfy { $0.speaksTandem })
        #expect(!RelayServerKind.go.speaksTandem && !RelayServerKind.python.speaksTandem)
    }

    @Test func theRecordedCommandNamesTheSelectingVariables() {
        let command = RelayBenchmark.Settings.recordedCommand(
            "bench/run 3", environment: ["TANDEM_BENCH_SERVERS": "tandem,tandem-redis-2", "TANDEM_BENCH_SCENARIOS": "a,b", "HOME": "/root"])
        #expect(command == "TANDEM_BENCH_SERVERS=tandem,tandem-redis-2 TANDEM_BENCH_SCENARIOS=a,b bench/run 3")
        #expect(RelayBenchmark.Settings.recordedCommand("bench/run 3", environment: [:]) == "bench/run 3")
        let rate = try? RelayBenchmark.Settings(environment: ["TANDEM_BENCH_RATE": "2", "TANDEM_BENCH_REPORT": "cluster-2.md"])
        #expect(rate?.sizes.messagesPerSecond == 2 && rate?.report == "cluster-2.md")
        #expect(throws: RelayBenchError.self) { try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_RATE": "0"]) }
    }

    @Test func membersOfARoomAlternateBetweenNodes() {
        #expect((0..<6).map { RelayDeployment.node(forMember: $0, nodes: 2) } == [0, 1, 0, 1, 0, 1])
        #expect((0..<4).map { RelayDeployment.node(forMember: $0, nodes: 1) } == [0, 0, 0, 0])
        #expect((0..<4).map { RelayDeployment.node(forMember: $0, nodes: 3) } == [0, 1, 2, 0])
        #expect(RelayDeployment.node(forMember: 5, nodes: 0) == 0)
    }

    @Test func processReadingsAreSummedAndAGoneProcessCountsZero() {
        #expect(RelayDeployment.total([1.5, 0.25, 2]) == 3.75)
        #expect(RelayDeployment.total([1.5, nil, 2]) == 3.5)
        #expect(RelayDeployment.total([]) == 0)
    }

    @Test func nodesJoinRedisInMemoryAndSingleServersKeepTheirCommandLine() {
        let single = RelayServerProcess.tandemArguments(kind: .tandem, dataDirectory: "/d", redisURL: nil, nodeID: nil)
        #expect(single == ["serve", "--port", "0", "--data", "/d", "--rate-limit", "0", "--log-level", "error",
                           "--idle-timeout", "3600000", "--heartbeat", "600000", "--max-participants", "1000"])
        let memory = RelayServerProcess.tandemArguments(kind: .tandemMemory, dataDirectory: "/d", redisURL: nil, nodeID: nil)
        #expect(memory == single + ["--in-memory"])
        let node = RelayServerProcess.tandemArguments(kind: .tandemRedis2, dataDirectory: "/d", redisURL: "redis://127.0.0.1:7000", nodeID: "n1")
        #expect(node == single + ["--in-memory", "--redis", "redis://127.0.0.1:7000", "--node-id", "n1"])
        let sharded = RelayServerProcess.tandemArguments(kind: .tandemRedis2Sharded, dataDirectory: "/d", redisURL: "redis://127.0.0.1:7000,redis://127.0.0.1:7001", nodeID: "n1")
        #expect(sharded == single + ["--in-memory", "--redis", "redis://127.0.0.1:7000,redis://127.0.0.1:7001", "--redis-cluster", "--node-id", "n1"])
        #expect(RelayServerKind.tandemRedis2Sharded.redisShards == 3 && RelayServerKind.tandemRedis2Everysec.redisShards == 1)
        let spread = Set((0..<100).map { RelayDeployment.node(forRoom: "room-\($0)", nodes: 2) })
        #expect(spread == [0, 1] && RelayDeployment.node(forRoom: "room-7", nodes: 2) == RelayDeployment.node(forRoom: "room-7", nodes: 2))
        #expect(RelayServerKind.tandemRedis2Affinity.roomAffinity && !RelayServerKind.tandemRedis2Everysec.roomAffinity)
        #expect(ClusterReport.processes(.tandemRedis2Sharded) == "2 nodes + 3 redis-server shards" && ClusterReport.processes(.tandemRedis) == "1 node + redis-server")
    }

    @Test func redisPersistsWithAlwaysFsyncEverySecondOrNotAtAll() {
        let durable = RedisBenchProcess.arguments(port: 7000, directory: "/tmp/r", persistence: .alwaysFsync)
        #expect(durable.joined(separator: " ").contains("--port 7000 --bind 127.0.0.1 --save  --appendonly yes --appendfsync always"))
        #expect(durable.contains("/tmp/r") && durable.contains("noeviction"))
        let volatile = RedisBenchProcess.arguments(port: 7000, directory: "/tmp/r", persistence: .none)
        #expect(volatile.joined(separator: " ").contains("--save  --appendonly no"))
        let everySecond = RedisBenchProcess.arguments(port: 7000, directory: "/tmp/r", persistence: .everySecond)
        #expect(everySecond.joined(separator: " ").contains("--appendonly yes --appendfsync everysec"))
        #expect(RelayServerKind(rawValue: "tandem-redis-2-everysec")?.redisPersistence == .everySecond)
        #expect(RelayServerKind.tandemRedis2Everysec.clusterNodes == 2)
    }

    @Test(.enabled(if: RedisServerProcess.executable != nil, "redis-server is not installed"), .timeLimit(.minutes(1)))
    func aFreshRedisStartsOnAFreePortAndStops() throws {
        let redis = try RedisBenchProcess(executable: try #require(RedisServerProcess.executable), persistence: .alwaysFsync)
        #expect(redis.url == "redis://127.0.0.1:\(redis.port)")
        #expect(LoadStatistics.cpuSeconds(processID: redis.processID) != nil)
        #expect(redis.commandCalls() != nil, "INFO commandstats through redis-cli")
        redis.stop()
        #expect(LoadStatistics.cpuSeconds(processID: redis.processID) == nil)
    }

    @Test func redisWorkComesFromTwoCommandstatsReadings() {
        let info = """
        # Commandstats\r
        cmdstat_evalsha:calls=6975,usec=438483,usec_per_call=62.86,rejected_calls=0,failed_calls=40\r
        cmdstat_xadd:calls=6845,usec=26753,usec_per_call=3.91,rejected_calls=0,failed_calls=0\r
        cmdstat_XREAD:calls=1215,usec=78525,usec_per_call=64.63\r
        cmdstat_broken:usec=1\r
        """
        let end = RedisBenchProcess.commandCalls(info: info)
        #expect(end == ["evalsha": 6975, "xadd": 6845, "xread": 1215])
        let work = RedisWork(from: ["evalsha": 975, "eval": 0, "xadd": 845, "xread": 215], to: end.merging(["eval": 25]) { $1 })
        #expect(work == RedisWork(scripts: 6025, appends: 6000, reads: 1000))
        #expect(work?.readsPerAppend == 1.0 / 6)
        #expect(RedisWork(scripts: 6, appends: 12, reads: 0).appendsPerScript == 2)
        #expect(RedisWork(scripts: 0, appends: 0, reads: 0).appendsPerScript == nil)
        #expect(RedisWork(scripts: 12, appends: 0, reads: 3).readsPerAppend == nil)
        #expect(RedisWork(from: nil, to: end) == nil)
    }

    @Test func revsMustArriveOnceAndInOrder() {
        var audit = DeliveryAudit()
        var last: Int64 = 4
        for rev: Int64 in [5, 6, 7] { last = audit.observe(rev: rev, after: last) }
        #expect(audit.isClean && last == 7)
        last = audit.observe(rev: 10, after: last)  // 8 and 9 skipped
        #expect(audit.missingRevs == 2 && last == 10)
        last = audit.observe(rev: 9, after: last)  // late
        last = audit.observe(rev: 10, after: last)  // twice
        #expect(audit.staleRevs == 2 && last == 10)
        #expect(audit.summary == "2 missing revs, 2 stale revs")
    }

    @Test func acksMustArriveOnceEachInSeqOrder() {
        var audit = DeliveryAudit()
        var last = 0
        last = audit.observeAck(seq: 1, duplicate: false, after: last)
        last = audit.observeAck(seq: 2, duplicate: false, after: last)
        #expect(audit.isClean && audit.summary == "ok")
        last = audit.observeAck(seq: 4, duplicate: false, after: last)
        last = audit.observeAck(seq: 4, duplicate: true, after: last)
        #expect(audit.outOfOrderAcks == 2 && audit.duplicateAcks == 1 && last == 4)
        let sum = audit + DeliveryAudit(rejects: 1, lostAcks: 3)
        #expect(sum.summary == "2 out-of-order acks, 1 duplicate acks, 1 rejects, 3 lost acks")
    }

    @Test func anomaliesFailARunAndClusterLossDoesToo() {
        var single = RelayBenchmark.Run(kind: .tandem, round: 1, loadAverage: 1)
        single.peak = .init(messagesPerSecond: 1, p50Milliseconds: 1, p99Milliseconds: 1, lost: 3, serverCores: 1, loadCores: 1)
        #expect(single.correctnessFailures.isEmpty)
        var cluster = RelayBenchmark.Run(kind: .tandemRedis2, round: 1, loadAverage: 1)
        cluster.peak = single.peak
        cluster.fixedRate = .init(p50Milliseconds: 1, p99Milliseconds: 2, lost: 0, expected: 10, serverCores: 1, loadCores: 1,
                                  audit: DeliveryAudit(missingRevs: 2))
        #expect(cluster.audit.missingRevs == 2)
        #expect(cluster.correctnessFailures == ["order check: 2 missing revs", "(a) 3 deliveries never arrived"])
        cluster.peak?.neverDelivered = 0  // late, but delivered within the cluster drain
        #expect(cluster.correctnessFailures == ["order check: 2 missing revs"])
        #expect(ClusterReport.checks(DeliveryAudit(), neverDelivered: 4) == "4 never delivered")
        #expect(ClusterReport.checks(DeliveryAudit(lostAcks: 1), neverDelivered: 4) == "1 lost acks, 4 never delivered")
    }

    @Test func clusterReportShowsSummedCPURedisCostPerPatchAndComparisons() throws {
        let settings = try RelayBenchmark.Settings(environment: ["TANDEM_BENCH_SERVERS": "tandem-memory,tandem-redis-2"])
        func run(_ kind: RelayServerKind, _ round: Int, rate: Double, redis: Double?) -> RelayBenchmark.Run {
            var run = RelayBenchmark.Run(kind: kind, round: round, loadAverage: 2.25)
            run.peak = .init(messagesPerSecond: rate, p50Milliseconds: 1, p99Milliseconds: 20, lost: 0, serverCores: 0.9, loadCores: 0.3,
                             redisCores: redis, redisWork: redis.map { _ in RedisWork(scripts: 10, appends: 20, reads: 4) })
            run.fixedRate = .init(p50Milliseconds: 0.5, p99Milliseconds: redis == nil ? 4 : 8, lost: 0, expected: 100, serverCores: 0.4, loadCores: 0.1)
            return run
        }
        let runs = [run(.tandemMemory, 1, rate: 180_000, redis: nil), run(.tandemRedis2, 1, rate: 90_000, redis: 0.5),
                    run(.tandemMemory, 2, rate: 200_000, redis: nil), run(.tandemRedis2, 2, rate: 72_000, redis: 0.4)]
        let relay = RelayReport(runs: runs, settings: settings, rounds: 2, started: .now, finished: .now)
        let report = ClusterReport(relay: relay, loadAtStart: [3.5, 2.25, 1], loadAtEnd: [4, 3, 1.5])
        let table = report.summaryTable()
        // Rooms of 10: 90,000 msg/s = 10,000 patches/s with Redis at 50 % of a core, 72,000 = 8,000 at 40 %: 50 µs each.
        #expect(table.contains("| Tandem, 2 nodes + Redis (AOF always) | 2 nodes + redis-server | 81,000 (72,000–90,000) | 90 % | 45 % | 11.25 (10.00–12.50) | 50.0 | 2.0 | 0.200 | 30 % |"))
        #expect(table.contains("| Tandem (--in-memory) | 1 | 190,000 (180,000–200,000) | 90 % | — |"))
        #expect(table.hasSuffix("| ok |"))
        let comparisons = report.comparisons()
        #expect(comparisons.count == 1)
        #expect(comparisons[0].hasPrefix("Tandem, 2 nodes + Redis (AOF always) against Tandem (--in-memory): (a) 0.43× the delivered msg/s"))
        #expect(comparisons[0].hasSuffix("(b) p99 8.00 ms vs 4.00 ms"))
        let markdown = report.markdown()
        #expect(markdown.contains("3.50, 2.25, 1.00 at the start, 4.00, 3.00, 1.50 at the end"))
        #expect(markdown.contains("cannot show scale-out"))
        #expect(markdown.contains("| 2 | tandem-redis-2 | 2.25 | 72,000 | 90 % | 40 % | 30 % | 0 | 0.50 | 8.00 | 0/100 | ok |  |"))
    }
}
