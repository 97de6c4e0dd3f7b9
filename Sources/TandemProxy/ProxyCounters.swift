import Synchronization
import TandemWire

/// The live counters behind `FaultProxy.Statistics`, updated from every loop thread without locks.
final class ProxyCounters: Sendable {
    let accepted = Atomic<Int>(0)
    let open = Atomic<Int>(0)
    let resets = Atomic<Int>(0)
    let blackholes = Atomic<Int>(0)
    let failedUpstreams = Atomic<Int>(0)
    let forwarded = Atomic<Int>(0)
    let held = Atomic<Int>(0)
    let dropRounds = Atomic<Int>(0)
    let blackholeRounds = Atomic<Int>(0)

    /// Reads every counter.
    var snapshot: FaultProxy.Statistics {
        FaultProxy.Statistics(
            acceptedConnections: accepted.load(ordering: .relaxed),
            openConnections: open.load(ordering: .relaxed),
            resetConnections: resets.load(ordering: .relaxed),
            blackholedConnections: blackholes.load(ordering: .relaxed),
            failedUpstreamConnections: failedUpstreams.load(ordering: .relaxed),
            forwardedBytes: forwarded.load(ordering: .relaxed),
            heldBytes: held.load(ordering: .relaxed),
            dropRounds: dropRounds.load(ordering: .relaxed),
            blackholeRounds: blackholeRounds.load(ordering: .relaxed)
        )
    }
}
