#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Testing
import TandemTestSupport
@testable import TandemProxy
@testable import TandemWire

@Suite struct ProxyRelayTests {
    /// A proxy with `faults` in front of a target that timestamps every chunk it receives.
    private func timestampingTarget(
        faults: FaultProxy.Faults
    ) throws -> (EventLoopGroup, FaultProxy, HandlerLog<TimestampingHandler>) {
        let group = try EventLoopGroup(threads: 2)
        do {
            let (target, log) = try listenLogging(group: group) { _ in TimestampingHandler() }
            let proxy = try FaultProxy.start(
                listenPort: 0, targetHost: "127.0.0.1", targetPort: target.port, faults: faults, group: group,
                random: SplitMix(seed: 42))
            return (group, proxy, log)
        } catch {
            group.shutdown()
            throw error
        }
    }

    @Test func oneMebibyteCrossesIntactBothWaysAndTheEndOfStreamFollows() async throws {
        let setup = try ProxiedEcho()
        let peer = try setup.peer()
        let payload = pattern(count: 1 << 20, seed: 11)
        DispatchQueue.global().async {
            try? peer.send(payload)
            peer.shutdownWrite()
        }
        let (bytes, end) = await peer.receiveAllOffPool()
        #expect(end == nil)
        #expect(bytes.count == payload.count)
        #expect(firstDifference(bytes, payload) == nil)
        #expect(firstDifference(setup.targetSide.all.first?.handler.snapshot.received ?? [], payload) == nil)
        try await eventually("pair closed") { setup.proxy.statistics.openConnections == 0 }
        #expect(setup.proxy.statistics.forwardedBytes == 2 * payload.count)
        await setup.stop()
    }

    @Test func latencyDelaysEveryRoundTripByAtLeastTwiceTheOneWayDelay() async throws {
        let setup = try ProxiedEcho()
        let peer = try setup.peer()
        let fast = await setup.timedRoundTrip(peer, [1, 2, 3])
        #expect(fast.bytes == [1, 2, 3])
        #expect(fast.elapsed < .milliseconds(100))
        setup.proxy.setFaults(.init(latency: .milliseconds(50)))
        try await eventually("faults applied") { setup.proxy.faults.latency == .milliseconds(50) }
        for round in 0..<3 {
            let message = pattern(count: 16, seed: round)
            let (back, elapsed) = await setup.timedRoundTrip(peer, message)
            #expect(back == message)
            #expect(elapsed >= .milliseconds(100), "round \(round): \(elapsed)")
            #expect(elapsed < .milliseconds(600), "round \(round): \(elapsed)")
        }
        await setup.stop()
    }

    @Test func jitterSpreadsOneWayDelaysWithinBoundsAndKeepsOrder() async throws {
        let (group, proxy, log) = try timestampingTarget(faults: .init(latency: .milliseconds(20), jitter: .milliseconds(40)))
        defer { group.shutdown() }
        let peer = try BlockingPeer(connectingTo: proxy.localAddress)
        let count = 40
        var sentAt: [ContinuousClock.Instant] = []
        for sequence in 0..<count {
            sentAt.append(.now)
            try peer.send([UInt8(sequence)])
            try await Task.sleep(for: .milliseconds(4))
        }
        try await eventually("all messages arrived") { log.all.first?.handler.byteCount == count }
        let arrivals = try #require(log.all.first?.handler.byteArrivals)
        #expect(arrivals.map(\.byte) == (0..<count).map { UInt8($0) }, "order kept")
        let delays = (0..<count).map { milliseconds(arrivals[$0].at - sentAt[$0]) }
        #expect(delays.allSatisfy { $0 >= 20 }, "\(delays)")
        // Latency + the largest jitter draw bounds every delay (an earlier chunk is waited for, never later ones).
        #expect(delays.allSatisfy { $0 <= 60 + 60 }, "\(delays)")
        let spread = (delays.max() ?? 0) - (delays.min() ?? 0)
        #expect(spread >= 10, "delays barely vary: \(delays)")
        await proxy.shutdown()
    }

    @Test func aBandwidthCapHoldsWithinAQuarterOverAFewHundredKilobytes() async throws {
        let (group, proxy, log) = try timestampingTarget(faults: .init(bandwidthKilobytesPerSecond: 500))
        defer { group.shutdown() }
        let peer = try BlockingPeer(connectingTo: proxy.localAddress)
        let payload = pattern(count: 300_000, seed: 4)
        let started = ContinuousClock.now
        try peer.send(payload)
        try await eventually("all bytes arrived") { log.all.first?.handler.byteCount == payload.count }
        let handler = try #require(log.all.first?.handler)
        let last = try #require(handler.chunks.withLock { $0.last?.at })
        let seconds = milliseconds(last - started) / 1000
        let rate = Double(payload.count) / seconds / 1000
        #expect(rate >= 375 && rate <= 625, "measured \(rate) KB/s over \(seconds) s for a 500 KB/s cap")
        #expect(firstDifference(handler.byteArrivals.map(\.byte), payload) == nil)
        await proxy.shutdown()
    }

    @Test
    func aTargetThatStopsReadingStallsTheClientInsteadOfFillingTheProxy() async throws {
        let limits = TCPConnectionConfiguration(highWaterMark: 256 * 1024, lowWaterMark: 64 * 1024, maxQueuedBytes: 512 * 1024)
        let setup = try ProxiedEcho(maxHeldBytes: 128 * 1024, connectionConfiguration: limits, echo: false, pauseTarget: true)
        // More than the proxy's send buffer toward the target (at most 4 MiB here) and the target's 16 KiB
        // receive buffer hold: without backpressure the proxy's queue to the target would overflow its 512 KiB
        // limit and reset the connection.
        let payload = pattern(count: 8 << 20, seed: 8)
        let client = PumpingClient(payload: payload)
        let connection = try await TCPConnection.connect(host: "127.0.0.1", port: setup.proxy.port, on: setup.group.loops[0]) { _ in client }
        try await connection.loop.submit { client.pump(connection) }
        // Wait until the client is stuck: nothing more handed over for 200 ms.
        var previous = -1
        for _ in 0..<100 {
            try await Task.sleep(for: .milliseconds(200))
            let now = client.sent.load(ordering: .relaxed)
            if now == previous { break }
            previous = now
            #expect(setup.proxy.statistics.heldBytes <= 128 * 1024 + 64 * 1024)
        }
        #expect(setup.proxy.statistics.heldBytes <= 128 * 1024 + 64 * 1024)
        #expect(setup.proxy.statistics.openConnections == 1)
        #expect(client.closed.withLock { $0.count } == 0)
        let (targetConnection, targetHandler) = try #require(setup.targetSide.all.first)
        try await targetConnection.loop.submit { targetConnection.resumeReading() }
        try await eventually("everything delivered", timeout: .seconds(20)) { targetHandler.receivedCount == payload.count }
        #expect(firstDifference(targetHandler.snapshot.received, payload) == nil)
        await setup.stop()
    }

    @Test func anUnreachableTargetClosesTheClientConnection() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let dead = try RefusingPort()
        defer { dead.close() }
        let deadPort = dead.port
        let proxy = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: deadPort, group: group)
        let peer = try BlockingPeer(connectingTo: proxy.localAddress, receiveTimeout: .seconds(3))
        let outcome = await peer.receiveOffPool()
        #expect(outcome == .success([]), "the client sees the connection end")
        try await eventually("counted") { proxy.statistics.failedUpstreamConnections == 1 }
        try await eventually("forgotten") { proxy.statistics.openConnections == 0 }
        await proxy.shutdown()
    }

    @Test func startRejectsPortsOutOfRange() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        #expect(throws: IOError.invalidPort(70_000)) {
            try FaultProxy.start(listenPort: 70_000, targetHost: "127.0.0.1", targetPort: 80, group: group)
        }
        #expect(throws: IOError.invalidPort(0)) {
            try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: 0, group: group)
        }
    }
}
