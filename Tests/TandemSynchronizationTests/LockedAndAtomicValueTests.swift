import Dispatch
import Testing
import TandemSynchronization

/// The package's lock and atomics, which stand in for Swift's `Mutex` and `Atomic` on the platforms those
/// are not available on: the operations `Atomic` offers, with its results, under contention too.
@Suite struct LockedAndAtomicValueTests {
    @Test func theLockSerializesEveryWriterAndReturnsWhatTheBodyReturns() {
        let counter = Locked([Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<1_000 { counter.withLock { $0.append(worker * 1_000 + step) } }
        }
        let values = counter.withLock { $0 }
        #expect(values.count == 8_000 && Set(values).count == 8_000)
        struct Refused: Error {}
        #expect(throws: Refused.self) { try counter.withLock { _ throws(Refused) in throw Refused() } }
        #expect(counter.withLock { $0.count } == 8_000)
    }

    @Test func addsFromManyThreadsAreNotLost() {
        let total = AtomicValue<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { total.add(1, ordering: .relaxed) }
        }
        #expect(total.load(ordering: .acquiring) == 80_000)
    }

    @Test func integerOperationsReturnTheValuesBeforeAndAfter() {
        let value = AtomicValue<Int>(5)
        #expect(value.add(3, ordering: .relaxed) == (8 - 3, 8))
        #expect(value.subtract(10, ordering: .releasing) == (8, -2))
        #expect(value.exchange(7, ordering: .acquiringAndReleasing) == -2)
        #expect(value.compareExchange(expected: 1, desired: 9, ordering: .sequentiallyConsistent) == (false, 7))
        #expect(value.compareExchange(expected: 7, desired: 9, ordering: .acquiringAndReleasing) == (true, 7))
        #expect(value.load(ordering: .sequentiallyConsistent) == 9)

        let small = AtomicValue<Int32>(-1)
        #expect(small.add(1, ordering: .relaxed).newValue == 0)
        #expect(small.subtract(1, ordering: .relaxed).newValue == -1)
        let unsigned = AtomicValue<UInt64>(.max)
        #expect(unsigned.wrappingAdd(1, ordering: .relaxed) == (.max, 0))
        #expect(unsigned.load(ordering: .relaxed) == 0)
        let byte = AtomicValue<UInt8>(0b0001)
        #expect(byte.bitwiseOr(0b0110, ordering: .acquiringAndReleasing) == (0b0001, 0b0111))
        #expect(byte.bitwiseAnd(0b0100, ordering: .acquiringAndReleasing) == (0b0111, 0b0100))
        #expect(byte.load(ordering: .relaxed) == 0b0100)
    }

    @Test func flagsAndPointersRoundTrip() {
        let flag = AtomicValue(false)
        flag.store(true, ordering: .releasing)
        #expect(flag.load(ordering: .acquiring))
        #expect(flag.compareExchange(expected: true, desired: false, ordering: .acquiringAndReleasing).exchanged)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        defer { storage.deallocate() }
        let pointer = AtomicValue<UnsafeMutableRawPointer?>(nil)
        #expect(pointer.exchange(storage, ordering: .acquiringAndReleasing) == nil)
        #expect(pointer.load(ordering: .acquiring) == storage)
    }
}
