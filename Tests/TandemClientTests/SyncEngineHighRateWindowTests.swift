import Foundation
import Testing
import TandemProtocol
@testable import TandemClient

/// The send window of high-rate values (a scroll offset): how far apart they go follows the patches' round
/// trip, they never queue behind other changes (nor those behind them), and a lost connection resends
/// only the values that still matter.
/// A millisecond, in the engine's nanoseconds.
private let ms: Int64 = 1_000_000

@Suite struct SyncEngineHighRateWindowTests {
    typealias F = Fixtures

    /// Sends one offset and answers it `roundTrip` later, `count` times: the engine measures that round trip.
    static func measure(_ engine: inout SyncEngine, roundTrip: Int64, count: Int = 40) throws -> Int64 {
        var now: Int64 = 0
        for step in 0..<count {
            try engine.localChange([F.set("/contentOffset/y", .number(Double(step)))])
            guard let seq = F.seqs(engine.nextOutgoing(now: now)).first else {
                now += 100 * ms
                continue
            }
            now += roundTrip
            _ = engine.receive(.ack(seq: seq, rev: engine.rev + 1, duplicate: false), now: now)
            now += 100 * ms
        }
        return now
    }

    @Test func theSpacingOfOffsetsIsAQuarterOfTheRoundTripBetweenAFrameAndTheConfiguredInterval() throws {
        let engine = F.connectedEngine()
        #expect(engine.highRateSpacing == 33 * ms, "before any answer: the configured interval")
        #expect(engine.highRateWindow == SyncEngineConfiguration().maxInFlight)

        var fast = F.connectedEngine()
        _ = try Self.measure(&fast, roundTrip: 20 * ms)
        #expect(fast.highRateSpacing == 8_333_333, "a 20 ms round trip: every frame's offset goes, never more often than 120 Hz")
        #expect(fast.highRateWindow == 5, "two round trips of values at that spacing")

        var slow = F.connectedEngine()
        _ = try Self.measure(&slow, roundTrip: 300 * ms)
        #expect(slow.highRateSpacing == 33 * ms, "a 300 ms round trip: 30 Hz, as configured")
        #expect(slow.highRateWindow == 19, "two round trips of 33 ms values")
        #expect(abs((slow.patchRoundTrip.smoothed ?? 0) - 0.3) < 1e-9)
    }

    /// The cases the web client library's node tests run too (`Tests/Fixtures/high-rate-spacing.json`).
    @Test func theSpacingIsTheWebClientsOnTheSharedCases() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/high-rate-spacing.json")
        let cases = try #require(try JSONValue.parse(String(contentsOf: file, encoding: .utf8)).arrayValue)
        #expect(cases.count >= 5)
        for entry in cases {
            var engine = F.connectedEngine()
            if case .number(let roundTrip)? = entry["roundTripMs"] {
                try engine.localChange([F.set("/contentOffset/y", 1)])
                let seq = try #require(F.seqs(engine.nextOutgoing(now: 0)).first)
                _ = engine.receive(.ack(seq: seq, rev: 1, duplicate: false), now: Int64(roundTrip * 1e6))
            }
            guard case .number(let expected)? = entry["spacingMs"] else { Issue.record("no spacingMs in \(entry)"); continue }
            #expect(abs(Double(engine.highRateSpacing) / 1e6 - expected) < 0.001, "\(entry)")
        }
    }

    @Test func onAFastLinkEveryFramesOffsetGoesOutAtOnce() throws {
        var engine = F.connectedEngine()
        var now = try Self.measure(&engine, roundTrip: 20 * ms)
        var sent = 0
        for step in 0..<60 {
            try engine.localChange([F.set("/contentOffset/y", .number(Double(1_000 + step)))])
            let seqs = F.seqs(engine.nextOutgoing(now: now))
            sent += seqs.count
            for seq in seqs { _ = engine.receive(.ack(seq: seq, rev: engine.rev + 1, duplicate: false), now: now + 20 * ms) }
            now += 16_666_667 + 20 * ms
        }
        #expect(sent == 60)
    }

    @Test func offsetsAndOtherChangesNeverWaitForEachOthersWindow() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 2))
        try engine.localChange([F.set("/a", 1)])
        try engine.localChange([F.set("/b", 1)])
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [1, 2])
        try engine.localChange([F.set("/contentOffset/y", 1)])
        #expect(F.seqs(engine.nextOutgoing(now: 0)) == [3], "two changes unanswered: an offset still goes")
        try engine.localChange([F.set("/contentOffset/y", 2)])
        #expect(F.seqs(engine.nextOutgoing(now: 40 * ms)) == [4])
        #expect(engine.inFlightCount == 4)
        // Offsets fill their own window (two before any answer): a change behind them waits only for its own.
        _ = engine.receive(.ack(seq: 1, rev: 1, duplicate: false))
        try engine.localChange([F.set("/contentOffset/y", 3)])
        #expect(F.seqs(engine.nextOutgoing(now: 80 * ms)).isEmpty, "the offsets' window is full")
        #expect(engine.nextSendTime(now: 80 * ms) == nil, "only an answer opens it")
        _ = engine.receive(.ack(seq: 3, rev: 2, duplicate: false))
        #expect(F.seqs(engine.nextOutgoing(now: 80 * ms)) == [5])
    }

    @Test func aLostConnectionResendsOnlyTheOffsetsThatStillMatter() throws {
        var engine = F.connectedEngine(configuration: SyncEngineConfiguration(maxInFlight: 10))
        var now: Int64 = 0
        for y in 1...3 {
            try engine.localChange([F.set("/contentOffset/y", .number(Double(y)))])
            _ = engine.nextOutgoing(now: now)
            now += 40 * ms
        }
        try engine.localChange([F.set("/tabIndex", 1)])
        try engine.localChange([F.set("/contentOffset", ["x": 0, "y": 4])])
        _ = engine.nextOutgoing(now: now)
        now += 40 * ms
        try engine.localChange([F.set("/contentOffset/y", 5)])
        _ = engine.nextOutgoing(now: now)
        #expect(engine.pending.map(\.seq) == [1, 2, 3, 4, 5, 6])

        engine.connectionLost()
        _ = engine.receive(F.welcome(rev: 1, state: ["contentOffset": ["y": 1]], lastSeq: 1, limits: SessionLimits(rate: 0)))
        // Seq 1 was applied. 2 and 3 set /contentOffset/y, which 5's whole offset decides: dropped. The tab
        // change touches no offset and keeps its place; 5 and 6 go as they were, one spacing apart.
        #expect(F.seqs(engine.nextOutgoing(now: now + 1)) == [4, 5])
        #expect(F.seqs(engine.nextOutgoing(now: now + 1 + 33 * ms)) == [6])
        #expect(engine.visible.root == ["contentOffset": ["x": 0, "y": 5], "tabIndex": 1])
    }
}
