import TandemSynchronization
import TandemWire

/// The live counters behind `FaultProxy.Statistics`, updated from every loop thread without locks.
final class ProxyCounters: Sendable {
    let accepted = AtomicValue<Int>(0)
    let open = AtomicValue<Int>(0)
    let resets = AtomicValue<Int>(0)
    let blackholes = AtomicValue<Int>(0)
    let failedUpstreams = AtomicValue<Int>(0)
    let forwarded = AtomicValue<Int>(0)
    let held = AtomicValue<Int>(0)
    let dropRounds = AtomicValue<Int>(0)
    let blackholeRounds = AtomicValue<Int>(0)

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
