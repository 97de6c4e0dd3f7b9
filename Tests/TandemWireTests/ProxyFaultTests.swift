#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TandemTestSupport
@testable import TandemProxy
@testable import TandemWire

@Suite struct ProxyFaultTests {
    @Test func resetAllMakesBothPeersSeeAResetAtOnce() async throws {
        let setup = try ProxiedEcho()
        let peer = try setup.peer()
        #expect(try await setup.roundTrip(peer, [7, 7]) == [7, 7])
        setup.proxy.resetAll()
        let (outcome, elapsed) = await peer.timedReceiveOffPool()
        #expect(elapsed < .milliseconds(500))
        #expect(outcome.failure?.errno == ECONNRESET, "\(outcome)")
        let targetHandler = try #require(setup.targetSide.all.first?.handler)
        try await eventually("target side reset") { targetHandler.snapshot.closed == 1 }
        #expect(targetHandler.snapshot.closeError?.isConnectionReset == true)
        try await eventually("pair forgotten") { setup.proxy.statistics.openConnections == 0 }
        #expect(setup.proxy.statistics.resetConnections == 1)
        // The proxy itself keeps working.
        let next = try setup.peer()
        #expect(try await setup.roundTrip(next, [1]) == [1])
        await setup.stop()
    }

    @Test func blackholeStopsBothDirectionsWithoutClosingAndRestoreDeliversWhatWasHeld() async throws {
        let setup = try ProxiedEcho()
        let peer = try setup.peer(receiveTimeout: .milliseconds(300))
        #expect(try await setup.roundTrip(peer, [1, 2]) == [1, 2])
        setup.proxy.blackholeAll()
        try await eventually("blackholed") { setup.proxy.statistics.blackholedConnections == 1 }
        try peer.send([3, 4, 5])
        // Neither data, nor end of stream, nor a reset: the receive just times out.
        let silent = await peer.receiveOffPool()
        #expect(silent.failure?.errno == EAGAIN || silent.failure?.errno == EWOULDBLOCK, "\(silent)")
        #expect(setup.targetSide.all.first?.handler.snapshot.received == [1, 2])
        #expect(setup.targetSide.all.first?.handler.snapshot.closed == 0)
        // A connection opened after the blackhole is unaffected.
        let fresh = try setup.peer()
        #expect(try await setup.roundTrip(fresh, [9, 9, 9]) == [9, 9, 9])
        // Restoring resumes the held stream without a gap (now with a patient receive: a loaded
        // machine may take longer than the short silence window to deliver it).
        peer.setReceiveTimeout(.seconds(10))
        setup.proxy.restore()
        try peer.send([6])
        var resumed: [UInt8] = []
        while resumed.count < 4 { resumed += try await peer.receiveOffPool().get() }
        #expect(resumed == [3, 4, 5, 6])
        #expect(setup.proxy.statistics.resetConnections == 0)
        await setup.stop()
    }

    @Test func aBlackholedPeerThatGivesUpIsReportedToTheOtherSideOnlyOnRestore() async throws {
        let setup = try ProxiedEcho()
        do {
            let peer = try setup.peer()
            #expect(try await setup.roundTrip(peer, [1]) == [1])
            setup.proxy.blackholeAll()
            try await eventually("blackholed") { setup.proxy.statistics.blackholedConnections == 1 }
            try peer.send([2])
            Socket.setLingerZero(peer.fd)  // the client resets its side as it leaves
        }
        try await Task.sleep(for: .milliseconds(100))
        let targetHandler = try #require(setup.targetSide.all.first?.handler)
        #expect(targetHandler.snapshot.closed == 0, "the target must not learn of it through a blackhole")
        setup.proxy.restore()
        try await eventually("target reset after restore") { targetHandler.snapshot.closed == 1 }
        #expect(targetHandler.snapshot.closeError?.isConnectionReset == true)
        try await eventually("pair forgotten") { setup.proxy.statistics.openConnections == 0 }
        await setup.stop()
    }

    @Test func dropEveryResetsOpenConnectionsPeriodicallyUntilTurnedOff() async throws {
        // A period long enough for a round trip to fit between two rounds on a loaded machine.
        // A second: the round trips after a drop round must fit before the next one even while the whole suite
        // loads both cores (half a second did not, once).
        let setup = try ProxiedEcho(faults: .init(dropEvery: .seconds(1)))
        let peer = try setup.peer(receiveTimeout: .seconds(5))
        #expect(await setup.timedRoundTrip(peer, [1]).bytes == [1])
        let (outcome, elapsed) = await peer.timedReceiveOffPool()
        #expect(outcome.failure?.errno == ECONNRESET, "\(outcome)")
        // Within one period of the exchange (plus scheduling slack), not at the end of the receive timeout.
        #expect(elapsed < .milliseconds(2_500))
        // Start right after a drop round, so the next one is a whole period away: the first peer may have
        // noticed its reset late, and a round trip straddling a round would be reset midway.
        let round = setup.proxy.statistics.dropRounds
        try await eventually("the next drop round") { setup.proxy.statistics.dropRounds > round }
        let second = try setup.peer(receiveTimeout: .seconds(5))
        #expect(try await setup.roundTrip(second, [2]) == [2])
        #expect(await second.receiveOffPool().failure?.errno == ECONNRESET)
        #expect(setup.proxy.statistics.dropRounds >= 2)
        #expect(setup.proxy.statistics.resetConnections == 2)
        setup.proxy.setFaults(.none)
        let rounds = setup.proxy.statistics.dropRounds
        let survivor = try setup.peer(receiveTimeout: .milliseconds(500))
        #expect(try await setup.roundTrip(survivor, [3]) == [3])
        let quiet = await survivor.receiveOffPool()
        #expect(quiet.failure?.errno == EAGAIN || quiet.failure?.errno == EWOULDBLOCK, "\(quiet)")
        #expect(setup.proxy.statistics.dropRounds == rounds)
        await setup.stop()
    }

    @Test func blackholeEveryTurnedOnLiveSilencesTheConnectionsOpenAtThatMoment() async throws {
        let setup = try ProxiedEcho()
        let peer = try setup.peer(receiveTimeout: .milliseconds(300))
        #expect(try await setup.roundTrip(peer, [1]) == [1])
        setup.proxy.setFaults(.init(blackholeEvery: .milliseconds(200)))
        try await eventually("timer fired", timeout: .seconds(2)) { setup.proxy.statistics.blackholedConnections == 1 }
        #expect(setup.proxy.statistics.blackholeRounds >= 1)
        try peer.send([2])
        let silent = await peer.receiveOffPool()
        #expect(silent.failure?.errno == EAGAIN || silent.failure?.errno == EWOULDBLOCK, "\(silent)")
        setup.proxy.setFaults(.none)
        let fresh = try setup.peer()
        #expect(try await setup.roundTrip(fresh, [5]) == [5])
        await setup.stop()
    }

    @Test func shutdownClosesEveryConnectionAndTheListener() async throws {
        let setup = try ProxiedEcho(faults: .init(latency: .milliseconds(5)))
        let peers = try (0..<3).map { _ in try setup.peer(receiveTimeout: .seconds(2)) }
        for (index, peer) in peers.enumerated() {
            #expect(try await setup.roundTrip(peer, [UInt8(index)]) == [UInt8(index)])
        }
        #expect(setup.proxy.statistics.openConnections == 3)
        setup.proxy.blackholeAll()  // blackholed pairs close too
        await setup.proxy.shutdown()
        for peer in peers {
            let end = await peer.receiveOffPool()
            #expect(end == .success([]) || end.failure?.isConnectionReset == true, "\(end)")
        }
        try await eventually("pairs forgotten") { setup.proxy.statistics.openConnections == 0 }
        try await eventually("target connections closed") {
            setup.targetSide.all.allSatisfy { $0.handler.snapshot.closed == 1 }
        }
        #expect(throws: IOError.self) { try setup.peer() }
        await setup.proxy.shutdown()  // idempotent
        setup.group.shutdown()
    }
}

extension Result {
    /// The error, if this is a failure.
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
