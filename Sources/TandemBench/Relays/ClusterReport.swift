import Foundation

/// Turns a run of `tandem bench relays` that includes cluster deployments (1 or 2 `tandem serve --redis` nodes
/// plus their `redis-server`) into `docs/bench/cluster.md`: medians with ranges, the CPU of all server
/// processes against the load generator's, Redis's CPU per sequenced patch, the load average, and the order checks.
struct ClusterReport {
    var relay: RelayReport
    /// `uptime`'s three load averages when the run started and ended.
    var loadAtStart: [Double]
    var loadAtEnd: [Double]

    private var sizes: RelayScenarios.Sizes { relay.settings.sizes }

    /// Redis CPU time per sequenced patch in (a), in µs: each patch is delivered to the other members of its room.
    func redisMicrosecondsPerPatch(_ peak: RelayScenarios.Peak) -> Double? {
        guard let redis = peak.redisCores, peak.messagesPerSecond > 0 else { return nil }
        let patchesPerSecond = peak.messagesPerSecond / Double(max(sizes.peakRoomSize - 1, 1))
        return redis / patchesPerSecond * 1e6
    }

    /// Redis CPU time per sequenced patch in (b), in µs: every client sends at the fixed rate.
    func redisMicrosecondsPerPatch(_ rate: RelayScenarios.FixedRate) -> Double? {
        guard let redis = rate.redisCores else { return nil }
        let patchesPerSecond = Double(sizes.rateRooms * sizes.rateRoomSize * sizes.messagesPerSecond)
        return patchesPerSecond > 0 ? redis / patchesPerSecond * 1e6 : nil
    }

    /// The table of medians (range over rounds in parentheses), one line per server in run order.
    func summaryTable() -> String {
        var lines = [
            "| server | processes | (a) delivered msg/s | (a) server CPU, all processes | (a) of which Redis | (a) server µs CPU / delivery | (a) Redis µs CPU / patch | (a) room batches / script | (a) log reads / room batch | (a) generator CPU | (a) p99 ms | (a) lost | (b) p50 ms | (b) p99 ms | (b) lost | (b) server CPU | (b) Redis µs CPU / patch | (b) generator CPU | order checks |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for kind in relay.settings.servers {
            let runs = relay.runs.filter { $0.kind == kind }
            let audit = runs.map(\.audit).reduce(DeliveryAudit(), +)
            let lostA = runs.compactMap(\.peak).reduce(0) { $0 + $1.lost }
            let lostB = runs.compactMap(\.fixedRate).reduce(0) { $0 + $1.lost }
            let cells: [String] = [
                kind.label,
                Self.processes(kind),
                relay.cell(kind, { $0.peak?.messagesPerSecond }) { RelayReport.grouped($0) },
                relay.cell(kind, { $0.peak?.serverCores }, range: false) { RelayReport.percent($0) },
                relay.cell(kind, { $0.peak?.redisCores }, range: false) { RelayReport.percent($0) },
                relay.cell(kind, { $0.peak?.serverMicrosecondsPerDelivery }) { RelayReport.fixed($0, 2) },
                relay.cell(kind, { $0.peak.flatMap(redisMicrosecondsPerPatch) }) { RelayReport.fixed($0, 1) },
                relay.cell(kind, { $0.peak?.redisWork?.appendsPerScript }) { RelayReport.fixed($0, 1) },
                relay.cell(kind, { $0.peak?.redisWork?.readsPerAppend }) { RelayReport.fixed($0, 3) },
                relay.cell(kind, { $0.peak?.loadCores }, range: false) { RelayReport.percent($0) },
                relay.cell(kind, { $0.peak?.p99Milliseconds }) { RelayReport.fixed($0, 1) },
                runs.contains { $0.peak != nil } ? RelayReport.grouped(Double(lostA)) : "—",
                relay.cell(kind, { $0.fixedRate?.p50Milliseconds }) { RelayReport.fixed($0, 2) },
                relay.cell(kind, { $0.fixedRate?.p99Milliseconds }) { RelayReport.fixed($0, 2) },
                runs.contains { $0.fixedRate != nil } ? RelayReport.grouped(Double(lostB)) : "—",
                relay.cell(kind, { $0.fixedRate?.serverCores }, range: false) { RelayReport.percent($0) },
                relay.cell(kind, { $0.fixedRate.flatMap(redisMicrosecondsPerPatch) }) { RelayReport.fixed($0, 1) },
                relay.cell(kind, { $0.fixedRate?.loadCores }, range: false) { RelayReport.percent($0) },
                kind.speaksTandem ? Self.checks(audit, neverDelivered: runs.map(\.neverDelivered).reduce(0, +)) : "not checked",
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }

    /// The order checks, and the deliveries that never arrived when there were any.
    static func checks(_ audit: DeliveryAudit, neverDelivered: Int) -> String {
        neverDelivered == 0 ? audit.summary : (audit.isClean ? "" : audit.summary + ", ") + "\(neverDelivered) never delivered"
    }

    /// The processes a deployment of `kind` runs, e.g. "2 nodes + redis-server" or "1 node + 3 redis-server shards".
    static func processes(_ kind: RelayServerKind) -> String {
        guard kind.isCluster else { return "1" }
        let redis = kind.redisShards > 1 ? "\(kind.redisShards) redis-server shards" : "redis-server"
        return "\(kind.clusterNodes) node\(kind.clusterNodes == 1 ? "" : "s") + \(redis)"
    }

    /// One line per cluster deployment comparing its medians with the single in-memory node (or the durable one
    /// when the in-memory node was not run): rate ratio, extra server CPU per delivery, p99 at the fixed rate.
    func comparisons() -> [String] {
        guard let reference = [RelayServerKind.tandemMemory, .tandem].first(where: { relay.settings.servers.contains($0) }) else { return [] }
        let referenceRate = relay.spread(reference) { $0.peak?.messagesPerSecond }?.median
        let referenceCost = relay.spread(reference) { $0.peak?.serverMicrosecondsPerDelivery }?.median
        let referenceP99 = relay.spread(reference) { $0.fixedRate?.p99Milliseconds }?.median
        var lines: [String] = []
        for kind in relay.settings.servers where kind.isCluster {
            var parts: [String] = []
            if let rate = relay.spread(kind, { $0.peak?.messagesPerSecond })?.median, let referenceRate, referenceRate > 0 {
                parts.append("(a) \(RelayReport.fixed(rate / referenceRate, 2))× the delivered msg/s")
            }
            if let cost = relay.spread(kind, { $0.peak?.serverMicrosecondsPerDelivery })?.median, let referenceCost {
                let sign = cost >= referenceCost ? "+" : "−"
                parts.append("server CPU per delivery \(RelayReport.fixed(cost, 2)) µs (\(sign)\(RelayReport.fixed(abs(cost - referenceCost), 2)) µs)")
            }
            if let p99 = relay.spread(kind, { $0.fixedRate?.p99Milliseconds })?.median, let referenceP99 {
                parts.append("(b) p99 \(RelayReport.fixed(p99, 2)) ms vs \(RelayReport.fixed(referenceP99, 2)) ms")
            }
            if !parts.isEmpty { lines.append("\(kind.label) against \(reference.label): " + parts.joined(separator: "; ")) }
        }
        return lines
    }

    /// The whole `docs/bench/cluster.md`.
    func markdown() -> String {
        let settings = relay.settings
        let loads = { (values: [Double]) in values.map { RelayReport.fixed($0, 2) }.joined(separator: ", ") }
        var text = """
        # Cluster benchmark: 1 node vs 2 nodes + Redis

        Generated by `\(settings.command)` (\(relay.rounds) rounds, \(RelayReport.timestamp(relay.started)) to \(RelayReport.timestamp(relay.finished)) UTC).
        Medians over the rounds, the range in parentheses. Deployments alternate inside every round
        (\(settings.servers.map(\.rawValue).joined(separator: " → "))); every measurement starts fresh processes
        (a new `redis-server` in its own temporary directory for a cluster deployment) and stops them afterwards.
        One load generator (`tandem bench relays`, one TandemWire event-loop thread) drives them all.

        \(RelayReport.machineFacts())
        Load average (1, 5, 15 min, as `uptime` shows it): \(loads(loadAtStart)) at the start, \(loads(loadAtEnd)) at the end;
        the 1-minute value before each measurement is in the per-run table.

        **Read this first: these numbers cannot show scale-out.** The machine has \(ProcessInfo.processInfo.activeProcessorCount) cores, shared with
        other builds. With two nodes, both `tandem serve` processes, `redis-server` and the load generator compete
        for the same cores, so a second node adds work (every node follows every room's Redis stream and fans out
        to its own connections) without adding a core. What the comparison does show is the price of cluster mode
        per patch: a Redis round trip and a Lua script to sequence it (plus an fsync with `appendfsync always`),
        the follower reading it back before the ack and the patch events are released, and, with two nodes, the
        fan-out of each patch on both nodes. Scale-out needs nodes on separate machines (or at least separate
        cores) and a Redis that is not the bottleneck; that is not measured here.

        \(summaryTable())

        \(comparisons().map { "- " + $0 }.joined(separator: "\n"))

        ## Deployments

        - `tandem`: one `tandem serve` with SQLite (acks after the commit); `tandem-memory`: the same with `--in-memory`.
        - `tandem-redis`, `tandem-redis-2`: a fresh `redis-server --save '' --appendonly yes --appendfsync always`
          (docs/CLUSTER.md's recommended durable setting: fsync before every reply) and 1 or 2
          `tandem serve --redis redis://127.0.0.1:PORT --node-id … --in-memory` nodes (rooms live in Redis;
          `--in-memory` only keeps invitations out of SQLite). `tandem-redis-volatile`, `tandem-redis-2-volatile`:
          the same with `--appendonly no` (Redis persists nothing); `tandem-redis-everysec`, `tandem-redis-2-everysec`:
          with `--appendfsync everysec` (written before each reply, fsynced once a second).
          `tandem-redis-sharded`, `tandem-redis-2-sharded`: 1 or 2 nodes with `--redis-cluster` on a Redis Cluster of
          three `redis-server --cluster-enabled yes` shards (`redis-cli --cluster create`, slots split evenly), each
          with `--appendfsync everysec`; the Redis columns sum over the shards.
        - With two nodes the members of every room alternate between them (member i connects to node i mod 2),
          so every patch is sequenced by Redis once and fanned out by both nodes; `tandem-redis-2-affinity`
          (one Redis, AOF everysec) puts every member of a room on the node its name hashes to, as a load
          balancer with room affinity does: each room is sequenced and fanned out by one node.
        - CPU columns are cores (100 % = one core) over the measuring window. "Server" is the sum over all the
          deployment's processes, `redis-server` included (from `/proc/PID/stat`, all threads); the generator's
          from `getrusage`. "Redis µs CPU / patch" is Redis's CPU time divided by the patches it sequenced
          (deliveries ÷ \(sizes.peakRoomSize - 1)).
        - From Redis's `INFO commandstats` over the same window (read with `redis-cli`): "room batches / script" is
          room batches appended (`XADD`: one log entry holds the patches one room had queued during the previous
          call's round trip) per sequencer script run (`EVALSHA`): a node sends the batches of all its rooms with
          patches ready in one call (group commit across rooms), so above 1 means several rooms per call;
          `behind` retries (two nodes racing for one room) lower it. "Log reads / room batch" is `XRANGE` + `XREAD`
          per appended batch summed over nodes: followers get the batches in the rooms' change messages
          (sharded Pub/Sub) and read a log only after subscribing, a reconnect or a gap.
        - "(b) Redis µs CPU / patch" is Redis's CPU time in (b) divided by the patches sent
          (\(sizes.rateRooms) rooms × \(sizes.rateRoomSize) clients × \(sizes.messagesPerSecond)/s).
        - **Order checks**: on every connection the generator checks that each rev of the room arrives once and in
          order (its own patches as `ack`, the others' as `patch` events), that every patch gets exactly one ack
          in seq order, and that nothing is rejected. Any count other than "ok" is a server bug; so is a delivery
          of a cluster deployment that never arrives (both mark the run as failed). "Lost" in (a) and (b) counts
          deliveries still missing 5 s (a) or 3 s (b) after the load stopped, as in the relay benchmark; a cluster
          deployment then gets \(RelayReport.seconds(sizes.clusterDrain)) s more to drain a backlog, and only what is missing after that
          counts as never delivered.

        ## Scenarios

        - **(a) peak**: \(sizes.peakRooms) rooms × \(sizes.peakRoomSize) clients, \(sizes.messageSize)-byte patches (one `set` op), closed loop: every
          client keeps \(sizes.window) patches in flight; a patch completes when every other member received it.
          Deliveries per second over \(RelayReport.seconds(sizes.measure)) s after \(RelayReport.seconds(sizes.warmup)) s of warm-up.
        - **(b) fixed rate**: \(sizes.rateRooms) rooms × \(sizes.rateRoomSize) clients, each sending \(sizes.messagesPerSecond) patches/s for \(RelayReport.seconds(sizes.measure)) s, spread
          evenly; one-way latency from send to receipt by each other member (one process clock), and deliveries
          still missing 3 s after the last send.

        ## Per run

        | round | server | load avg (1 min) | (a) msg/s | (a) server CPU | (a) Redis CPU | (a) gen. CPU | (a) lost | (b) p50 ms | (b) p99 ms | (b) lost | order checks | notes |
        | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |

        """
        for run in relay.runs {
            let cells: [String] = [
                "\(run.round)", run.kind.rawValue, RelayReport.fixed(run.loadAverage, 2),
                run.peak.map { RelayReport.grouped($0.messagesPerSecond) } ?? "—",
                run.peak.map { RelayReport.percent($0.serverCores) } ?? "—",
                run.peak?.redisCores.map { RelayReport.percent($0) } ?? "—",
                run.peak.map { RelayReport.percent($0.loadCores) } ?? "—",
                run.peak.map { "\($0.lost)" } ?? "—",
                run.fixedRate.map { RelayReport.fixed($0.p50Milliseconds, 2) } ?? "—",
                run.fixedRate.map { RelayReport.fixed($0.p99Milliseconds, 2) } ?? "—",
                run.fixedRate.map { "\($0.lost)/\($0.expected)" } ?? "—",
                run.kind.speaksTandem ? Self.checks(run.audit, neverDelivered: run.neverDelivered) : "—",
                run.failures.joined(separator: "; ").replacingOccurrences(of: "|", with: "/"),
            ]
            text += "| " + cells.joined(separator: " | ") + " |\n"
        }
        return text
    }
}
