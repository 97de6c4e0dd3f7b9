import Testing
import TandemProtocol
@testable import TandemClient

/// The engine's contract against the server's own sequencer: whatever the interleaving of local
/// changes, deliveries, drops, resumes and snapshots, every client ends with confirmed and
/// visible states equal to the server's document, and no acknowledged patch is lost.
///
/// The simulations are pure CPU work; each test yields between simulations so that, in a full
/// parallel run, it does not hold one of the few cooperative threads for seconds and starve the
/// timers of the socket tests next to it.
@Suite struct SyncEnginePropertyTests {
    @Test(arguments: 0..<40)
    func clientsConvergeOnTheServerDocument(batch: Int) async {
        var totals = SyncSimulation.Stats()
        for case_ in 0..<10 {
            let seed = UInt64(batch * 10 + case_) &* 0x2545_F491_4F6C_DD1D &+ 17
            await Task.yield()
            var simulation = SyncSimulation(seed: seed)
            simulation.run(steps: 150)
            simulation.checkConverged()
            simulation.checkIntent()
            totals.acks += simulation.stats.acks
            totals.rebasedAcks += simulation.stats.rebasedAcks
            totals.intentChecks += simulation.stats.intentChecks
            totals.rejects += simulation.stats.rejects
            totals.drops += simulation.stats.drops
            totals.replays += simulation.stats.replays
            totals.snapshots += simulation.stats.snapshots
            totals.lateApplied += simulation.stats.lateApplied
            totals.ownEventAcks += simulation.stats.ownEventAcks
        }
        // The generator must actually reach the interesting paths.
        #expect(totals.acks > 100)
        #expect(totals.rejects > 0)
        #expect(totals.drops > 10)
        #expect(totals.replays > 0 && totals.snapshots > 0)
        #expect(totals.rebasedAcks > 0, "no patch was rebased")
        #expect(totals.intentChecks > 1, "intent checked in \(totals.intentChecks) simulations only")
    }

    @Test func generatorReachesRarePaths() async {
        var lateApplied = 0, ownEventAcks = 0, duplicates = 0
        for seed in 0..<200 {
            await Task.yield()
            var simulation = SyncSimulation(seed: UInt64(seed) &* 0x9E37_79B9 &+ 3)
            simulation.run(steps: 150)
            simulation.checkConverged()
            simulation.checkIntent()
            lateApplied += simulation.stats.lateApplied
            ownEventAcks += simulation.stats.ownEventAcks
            duplicates += simulation.stats.duplicates
        }
        #expect(lateApplied > 0, "no patch of a lost connection was applied late")
        #expect(ownEventAcks > 0, "no own patch event served as an ack")
        #expect(duplicates > 0, "no duplicate ack was exercised")
    }
}
