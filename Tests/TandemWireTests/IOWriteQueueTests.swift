#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
@testable import TandemWire

@Suite struct IOWriteQueueTests {
    /// Gathers the queue's vectors (as the connection does before `sendmsg`) into one array.
    private func gathered(_ queue: WriteQueue, capacity: Int = 64) -> [UInt8] {
        let vectors = UnsafeMutablePointer<iovec>.allocate(capacity: capacity)
        defer { vectors.deallocate() }
        var bytes: [UInt8] = []
        _ = queue.withIOVectors(vectors, capacity: capacity) { count in
            for index in 0..<count {
                let vector = vectors[index]
                bytes.append(contentsOf: UnsafeRawBufferPointer(start: vector.iov_base, count: vector.iov_len))
            }
            return 0
        }
        return bytes
    }

    @Test func gathersChunksInOrderAndSkipsEmptyOnes() {
        var queue = WriteQueue()
        queue.append([1, 2, 3])
        queue.append([])
        queue.append([4, 5])
        #expect(queue.byteCount == 5)
        #expect(gathered(queue) == [1, 2, 3, 4, 5])
    }

    @Test func partialConsumptionResumesMidChunk() {
        var queue = WriteQueue()
        queue.append([1, 2, 3])
        queue.append([4, 5, 6])
        queue.consume(2)
        #expect(queue.byteCount == 4)
        #expect(gathered(queue) == [3, 4, 5, 6])
        queue.consume(2)
        #expect(gathered(queue) == [5, 6])
        queue.consume(2)
        #expect(queue.isEmpty)
        #expect(gathered(queue) == [])
    }

    @Test func vectorCapacityLimitsOneGather() {
        var queue = WriteQueue()
        for value in 0..<10 { queue.append([UInt8(value)]) }
        #expect(gathered(queue, capacity: 4) == [0, 1, 2, 3])
        queue.consume(4)
        #expect(gathered(queue, capacity: 64) == [4, 5, 6, 7, 8, 9])
    }

    @Test func longQueuesCompactWhileDraining() {
        var queue = WriteQueue()
        var expected: [UInt8] = []
        for value in 0..<200 {
            let chunk = [UInt8(value % 256), UInt8((value * 7) % 256)]
            queue.append(chunk)
            expected.append(contentsOf: chunk)
        }
        var drained: [UInt8] = []
        while !queue.isEmpty {
            let next = gathered(queue, capacity: 3)
            let take = min(next.count, 5)
            drained.append(contentsOf: next.prefix(take))
            queue.consume(take)
        }
        #expect(drained == expected)
    }
}
