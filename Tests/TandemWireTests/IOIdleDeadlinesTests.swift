import Testing
@testable import TandemWire

private final class Tracked: IdleTracked {
    let name: String
    var idleDeadline: UInt64 = 0
    var idleSlot = -1
    init(_ name: String) { self.name = name }
}

@Suite struct IOIdleDeadlinesTests {
    @Test func expiredMembersAreRemovedEarliestFirst() {
        var set = IdleDeadlines<Tracked>()
        let a = Tracked("a"), b = Tracked("b"), c = Tracked("c"), d = Tracked("d")
        set.arm(a, deadline: 50)
        set.arm(b, deadline: 10)
        set.arm(c, deadline: 100)
        set.arm(d, deadline: 30)
        let expired = set.removeExpired(now: 50)
        #expect(expired.map(\.name) == ["b", "d", "a"])
        #expect(set.members.map(\.name) == ["c"])
        #expect(a.idleSlot == -1 && b.idleSlot == -1 && d.idleSlot == -1)
        #expect(c.idleSlot == 0)
    }

    @Test func rearmingMovesTheDeadlineWithoutDuplicating() {
        var set = IdleDeadlines<Tracked>()
        let a = Tracked("a")
        set.arm(a, deadline: 10)
        set.arm(a, deadline: 500)
        #expect(set.count == 1)
        #expect(set.removeExpired(now: 100).isEmpty)
        #expect(set.removeExpired(now: 500).map(\.name) == ["a"])
        #expect(set.isEmpty)
    }

    @Test func disarmKeepsSlotsConsistent() {
        var set = IdleDeadlines<Tracked>()
        let members = (0..<10).map { Tracked("m\($0)") }
        for (index, member) in members.enumerated() { set.arm(member, deadline: UInt64(index)) }
        set.disarm(members[3])
        set.disarm(members[0])
        set.disarm(members[9])
        set.disarm(members[3])  // twice: no effect
        #expect(set.count == 7)
        for (slot, member) in set.members.enumerated() { #expect(member.idleSlot == slot) }
        #expect(members[3].idleSlot == -1)
        #expect(set.removeExpired(now: .max).map(\.name) == ["m1", "m2", "m4", "m5", "m6", "m7", "m8"])
    }
}
