#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes a connection has accepted for writing but the kernel has not taken yet, as a FIFO of chunks.
///
/// Chunks are stored as arrays so a buffer shared by many connections is referenced, not copied. An empty
/// queue holds no allocation, which keeps idle connections small.
struct WriteQueue {
    private var chunks: [[UInt8]] = []
    private var head = 0
    private var headOffset = 0
    /// Bytes queued and not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    /// Appends a chunk; empty chunks are ignored.
    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        byteCount += bytes.count
    }

    /// Describes up to `capacity` leading chunks as `iovec`s in `vectors` and calls `body` with the count while
    /// the chunk storage is pinned. `body` returns the number of bytes written (or a negative error marker).
    func withIOVectors(_ vectors: UnsafeMutablePointer<iovec>, capacity: Int, _ body: (Int) -> Int) -> Int {
        let available = min(chunks.count - head, capacity)
        // Each chunk's pointer is only valid inside its own `withUnsafeBytes`, so the closures nest.
        func pin(_ position: Int) -> Int {
            if position == available { return body(available) }
            return chunks[head + position].withUnsafeBytes { raw in
                let skip = position == 0 ? headOffset : 0
                vectors[position] = iovec(
                    iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip),
                    iov_len: raw.count - skip
                )
                return pin(position + 1)
            }
        }
        return pin(0)
    }

    /// Drops the first `count` bytes (they were written).
    mutating func consume(_ count: Int) {
        precondition(count <= byteCount, "consumed more than was queued")
        byteCount -= count
        var remaining = count
        while remaining > 0 {
            let left = chunks[head].count - headOffset
            if remaining >= left {
                remaining -= left
                head += 1
                headOffset = 0
            } else {
                headOffset += remaining
                remaining = 0
            }
        }
        if byteCount == 0 {
            removeAll()
        } else if head >= 32, head * 2 >= chunks.count {
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Empties the queue; keeps a small chunk array for reuse, releases a large one.
    mutating func removeAll() {
        chunks.removeAll(keepingCapacity: chunks.capacity <= 8)
        head = 0
        headOffset = 0
        byteCount = 0
    }
}
