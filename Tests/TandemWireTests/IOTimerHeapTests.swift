import Testing
@testable import TandemWire

@Suite struct IOTimerHeapTests {
    @Test func popsInDeadlineOrderWithInsertionOrderForTies() {
        var heap = TimerHeap<String>()
        heap.insert(deadline: 30, "c")
        heap.insert(deadline: 10, "a1")
        heap.insert(deadline: 20, "b")
        heap.insert(deadline: 10, "a2")
        heap.insert(deadline: 10, "a3")
        var order: [String] = []
        while let next = heap.popExpired(now: .max) { order.append(next) }
        #expect(order == ["a1", "a2", "a3", "b", "c"])
    }

    @Test func popsOnlyWhatIsDue() {
        var heap = TimerHeap<Int>()
        heap.insert(deadline: 100, 1)
        heap.insert(deadline: 200, 2)
        #expect(heap.nextDeadline == 100)
        #expect(heap.popExpired(now: 99) == nil)
        #expect(heap.popExpired(now: 100) == 1)
        #expect(heap.popExpired(now: 150) == nil)
        #expect(heap.nextDeadline == 200)
        #expect(heap.popExpired(now: 250) == 2)
        #expect(heap.isEmpty)
        #expect(heap.nextDeadline == nil)
    }

    @Test func manyRandomDeadlinesComeOutSorted() {
        var generator = SplitMix(seed: 7)
        var heap = TimerHeap<UInt64>()
        var expected: [UInt64] = []
        for _ in 0..<2_000 {
            let deadline = generator.next() % 10_000
            heap.insert(deadline: deadline, deadline)
            expected.append(deadline)
        }
        var popped: [UInt64] = []
        while let next = heap.popExpired(now: .max) { popped.append(next) }
        #expect(popped == expected.sorted())
    }

    @Test func removeAllKeepsHeapOrderOfTheRest() {
        var heap = TimerHeap<Int>()
        for value in (0..<100).reversed() { heap.insert(deadline: UInt64(value), value) }
        heap.removeAll { $0 % 3 == 0 }
        #expect(heap.count == 66)
        var popped: [Int] = []
        while let next = heap.popExpired(now: .max) { popped.append(next) }
        #expect(popped == (0..<100).filter { $0 % 3 != 0 })
    }
}
