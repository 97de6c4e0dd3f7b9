import Dispatch
import Foundation
import Testing
@testable import TandemServer

/// The lock-free hand-off from the commit lane to the journal's materializer.
@Suite struct RecordInboxTests {
    private static func record(_ position: UInt64) -> JournalRecord {
        JournalRecord(position: position, writes: [.deleteInvite(code: String(position))])
    }

    @Test func recordsComeOutInPushOrderAndOnlyOnce() {
        let inbox = RecordInbox()
        for position in 1...5 { inbox.push(Self.record(UInt64(position))) }
        #expect(inbox.count == 5)
        #expect(inbox.takeAll().map(\.position) == [1, 2, 3, 4, 5])
        #expect(inbox.count == 0)
        #expect(inbox.takeAll().isEmpty)
        inbox.push(Self.record(6))
        #expect(inbox.takeAll().map(\.position) == [6])
    }

    @Test func concurrentPushersLoseNothingAndKeepTheirOwnOrder() async {
        let inbox = RecordInbox()
        let pushers = 4, each = 5_000
        let taken = Taken()
        // The consumer takes while the pushers push, as the materializer does.
        let consumer = Thread {
            var seen = 0
            while seen < pushers * each {
                let batch = inbox.takeAll()
                seen += batch.count
                taken.append(batch)
            }
        }
        consumer.start()
        await withTaskGroup(of: Void.self) { group in
            for pusher in 0..<pushers {
                group.addTask {
                    // Positions encode the pusher (high) and its sequence (low).
                    for index in 0..<each { inbox.push(Self.record(UInt64(pusher) << 32 | UInt64(index))) }
                }
            }
        }
        let all = await taken.waitFor(pushers * each)
        #expect(all.count == pushers * each)
        for pusher in 0..<pushers {
            let own = all.filter { $0.position >> 32 == UInt64(pusher) }.map { $0.position & 0xFFFF_FFFF }
            #expect(own == (0..<UInt64(each)).map { $0 })
        }
        #expect(inbox.count == 0)
    }

    @Test func aSleepingConsumerWakesOnAPushAndATimedWaitEndsOnItsOwn() {
        let inbox = RecordInbox()
        let woke = DispatchSemaphore(value: 0)
        Thread {
            inbox.wait(until: nil)
            woke.signal()
        }.start()
        // Whether the push lands before or after the consumer sleeps, the wait ends.
        inbox.push(Self.record(1))
        #expect(woke.wait(timeout: .now() + 10) == .success)

        let start = DispatchTime.now()
        inbox.wait(until: .now + .milliseconds(50))
        #expect(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds >= 40_000_000)
    }

    /// Collects what the consumer thread takes.
    private final class Taken: @unchecked Sendable {
        private let condition = NSCondition()
        private var records: [JournalRecord] = []

        func append(_ batch: [JournalRecord]) {
            condition.lock()
            records.append(contentsOf: batch)
            condition.broadcast()
            condition.unlock()
        }

        func waitFor(_ count: Int) async -> [JournalRecord] {
            await withCheckedContinuation { continuation in
                Thread {
                    self.condition.lock()
                    let deadline = Date(timeIntervalSinceNow: 30)
                    while self.records.count < count, self.condition.wait(until: deadline) {}
                    let result = self.records
                    self.condition.unlock()
                    continuation.resume(returning: result)
                }.start()
            }
        }
    }
}
