import Testing
import TandemProtocol
@testable import TandemClient

@Suite struct SyncEnginePacingTests {
    typealias F = Fixtures

    /// Sends a backlog through the engine, acking at once, waking when `nextSendTime` says; returns send times.
    static func drain(_ engine: inout SyncEngine, count: Int, startingAt start: Int64 = 0) -> [Int64] {
        var times: [Int64] = []
        var now = start
        var rev = engine.rev
        while times.count < count && now < start + 60_000_000_000 {
            for message in engine.nextOutgoing(now: now) {
                guard case .patch(let seq, _, _) = message else { continue }
                times.append(now)
                rev += 1
                _ = engine.receive(.ack(seq: seq, rev: rev, duplicate: false))
            }
            guard let due = engine.nextSendTime(now: now) else { break }
            now = max(now + 1, due)
        }
        return times
    }

    @Test func pacingStaysWithin80PercentOfTheServerBudgetInEveryWindow() throws {
        let limits = SessionLimits(rate: 60, burst: 120)
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 1_000), limits: limits)
        for index in 0..<600 { try engine.localChange([F.set("/k\(index)", 1)]) }
        let times = Self.drain(&engine, count: 600)
        #expect(times.count == 600)
        // Every window [t, t + w]: at most 80 % of what the server's bucket allows in it.
        var violations: [String] = []
        for (first, start) in times.enumerated() {
            for window in [Int64(0), 100_000_000, 1_000_000_000, 5_000_000_000] {
                let sent = times[first...].prefix { $0 <= start + window }.count
                let allowance = 0.8 * (Double(limits.burst) + limits.rate * Double(window) / 1e9)
                if Double(sent) > allowance + 1e-9 { violations.append("\(sent) sends in \(window) ns from \(start)") }
            }
        }
        #expect(violations.isEmpty)
        #expect(times.last.map { $0 >= Int64((600.0 - 96) / 48 * 1e9) - 1 } == true, "the long-run rate is 80 % of 60/s")
        // And the server's own bucket never refuses them.
        var server = TokenBucket(rate: limits.rate, burst: Double(limits.burst), now: 0)
        #expect(times.allSatisfy { server.take(now: $0) })
    }

    @Test func backlogAfterReconnectIsPacedToo() throws {
        let limits = SessionLimits(rate: 10, burst: 5)
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 1_000), limits: limits)
        for index in 0..<50 { try engine.localChange([F.set("/k\(index)", 1)]) }
        _ = engine.nextOutgoing(now: 0)
        engine.connectionLost()
        _ = engine.receive(F.welcome(rev: 0, state: .emptyObject, lastSeq: 0, limits: limits))
        let times = Self.drain(&engine, count: 50, startingAt: 10_000_000_000)
        #expect(times.count == 50)
        // Burst of 4 (80 % of 5), then one every 125 ms (80 % of 10/s).
        #expect(times.prefix(4).allSatisfy { $0 == 10_000_000_000 })
        let spacing = zip(times.dropFirst(4), times.dropFirst(5)).map { $1 - $0 }
        #expect(spacing.allSatisfy { $0 >= 124_000_000 })
    }

    @Test func rateZeroMeansUnlimited() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 1_000), limits: SessionLimits(rate: 0))
        for index in 0..<500 { try engine.localChange([F.set("/k\(index)", 1)]) }
        #expect(engine.nextOutgoing(now: 0).count == 500)
    }

    @Test func otherMessagesCountAgainstTheBudget() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 1_000), limits: SessionLimits(rate: 10, burst: 5))
        for _ in 0..<4 { engine.noteMessageSent(now: 0) }
        try engine.localChange([F.set("/a", 1)])
        #expect(engine.nextOutgoing(now: 0).isEmpty)
        #expect(engine.nextSendTime(now: 0) == 125_000_000)
        #expect(engine.nextOutgoing(now: 125_000_000).count == 1)
    }
}
