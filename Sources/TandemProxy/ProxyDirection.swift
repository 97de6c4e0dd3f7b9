import TandemWire

/// One direction of a relayed pair (client → target or target → client): reads from `source`, holds each
/// chunk until the link model releases it, writes it to `sink`.
///
/// Loop-bound: every method runs on the pair's loop thread. Ordering: chunks leave in the order they were
/// read. Memory: `source` is paused while `maxHeldBytes` are held, while `sink` is not writable and while
/// the direction holds (blackhole), so what the proxy buffers stays bounded.
final class ProxyDirection: @unchecked Sendable {
    private struct Chunk {
        let deliverAt: UInt64
        let bytes: [UInt8]
    }

    let loop: EventLoop
    private let counters: ProxyCounters
    private let maxHeldBytes: Int
    /// The connection this direction reads from (nil until attached).
    var source: TCPConnection?
    /// The connection this direction writes to (nil until attached, e.g. while the target is connecting).
    var sink: TCPConnection?
    private var shaper = LinkShaper()
    private var pending: [Chunk] = []
    private var head = 0
    private(set) var heldBytes = 0
    private var timer: ScheduledTask?
    /// The source sent its FIN: pass it on once every held chunk left.
    private var sourceEnded = false
    /// The source closed for good: close the sink once every held chunk left.
    private var sourceClosed = false
    /// Blackholed: nothing leaves and nothing is read until `release()`.
    private(set) var isHolding = false

    init(loop: EventLoop, counters: ProxyCounters, maxHeldBytes: Int) {
        self.loop = loop
        self.counters = counters
        self.maxHeldBytes = maxHeldBytes
    }

    /// Takes bytes just read from `source`; `jitter` draws one chunk's extra delay in nanoseconds.
    func receive(_ bytes: UnsafeRawBufferPointer, faults: FaultProxy.Faults, jitter: () -> UInt64) {
        guard let sink, !sink.isClosed else { return }  // the other side is gone: read and discard until EOF
        if faults.isTransparent, head == pending.count, !isHolding, sink.isWritable {
            sink.write([UInt8](bytes))
            counters.forwarded.add(bytes.count, ordering: .relaxed)
            updateReading()
            return
        }
        let now = MonotonicTime.now()
        let rate = faults.bandwidthBytesPerSecond
        let slice = LinkShaper.sliceSize(bytesPerSecond: rate, chunk: bytes.count)
        let extra = jitter()
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + slice, bytes.count)
            let deliverAt = shaper.deliveryTime(
                bytes: end - offset, arrival: now, latency: faults.latencyNanoseconds, jitter: extra, bytesPerSecond: rate, stall: faults.stall)
            pending.append(Chunk(deliverAt: deliverAt, bytes: [UInt8](UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))))
            offset = end
        }
        heldBytes += bytes.count
        counters.held.add(bytes.count, ordering: .relaxed)
        pump()
        updateReading()
    }

    /// Writes every chunk that is due while the sink is writable, then arms a timer for the next one or
    /// passes on the source's end of stream.
    func pump() {
        timer?.cancel()
        timer = nil
        guard !isHolding, let sink else { return }
        let now = MonotonicTime.now()
        while head < pending.count, pending[head].deliverAt <= now, sink.isWritable || sink.isClosed {
            let chunk = pending[head]
            head += 1
            heldBytes -= chunk.bytes.count
            counters.held.subtract(chunk.bytes.count, ordering: .relaxed)
            counters.forwarded.add(chunk.bytes.count, ordering: .relaxed)
            sink.write(chunk.bytes)
        }
        compact()
        if head < pending.count {
            // Not writable: `connectionWritabilityChanged` pumps again.
            guard sink.isWritable else { return }
            let wait = pending[head].deliverAt - now
            timer = loop.schedule(after: .nanoseconds(Int64(clamping: wait))) { [weak self] in
                guard let self else { return }
                self.timer = nil
                self.pump()
                self.updateReading()
            }
        } else if sourceClosed {
            sink.close()
        } else if sourceEnded {
            sink.shutdownOutput()
        }
    }

    /// Pauses the source while the proxy must not read more for this direction, resumes it otherwise.
    func updateReading() {
        guard let source, !source.isClosed else { return }
        let sinkGone = sink?.isClosed ?? false
        let mustWait = sink == nil || !(sink?.isWritable ?? false) || heldBytes >= maxHeldBytes
        if isHolding || (mustWait && !sinkGone) {
            source.pauseReading()
        } else {
            source.resumeReading()
        }
    }

    /// The source sent its FIN.
    func sourceDidEnd() {
        sourceEnded = true
        pump()
    }

    /// The source closed cleanly: close the sink gracefully once what is held has left.
    func sourceDidClose() {
        sourceClosed = true
        pump()
    }

    /// Blackholes the direction: nothing leaves, nothing more is read; held chunks wait (kept, so a later
    /// `release()` continues the byte stream without a gap, as a recovered network would).
    func hold() {
        isHolding = true
        timer?.cancel()
        timer = nil
        updateReading()
    }

    /// Ends a `hold()`: chunks that came due meanwhile leave at once, in order.
    func release() {
        guard isHolding else { return }
        isHolding = false
        pump()
        updateReading()
    }

    /// Drops everything held and stops the timer (the pair is being torn down).
    func discard() {
        timer?.cancel()
        timer = nil
        counters.held.subtract(heldBytes, ordering: .relaxed)
        heldBytes = 0
        pending = []
        head = 0
        source = nil
        sink = nil
    }

    private func compact() {
        if head == pending.count {
            pending.removeAll(keepingCapacity: pending.count <= 4096)
            head = 0
        } else if head >= 1024, head * 2 >= pending.count {
            pending.removeFirst(head)
            head = 0
        }
    }
}
