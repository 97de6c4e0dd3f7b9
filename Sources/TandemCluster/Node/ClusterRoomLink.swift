import TandemSynchronization
import TandemServer

/// Connects the cluster engine's events for one room to the `Room` that serves it on this node, and
/// orders the room's loads, resets and release with the engine in one queue (submissions go to the
/// engine directly, which keeps their call order).
///
/// The engine may fold patches as soon as it opened the room, before the `Room` exists: from
/// `beginBuffering()` until `attach(_:)` events are kept, and `attach` hands them over first, so the
/// room sees every rev after the one it was built at, in order. Thread-safety: a mutex; events are
/// handed to the room under it, which keeps them in order against a concurrent `attach`.
final class ClusterRoomLink: Sendable {
    private struct State {
        /// Strong: a weak reference would give the room a side table, which slows every retain and
        /// release of it for its whole life. `detach` (release, failed load) or the next `attach`
        /// drops it; `ClusterNode.shutdown()` detaches every link.
        var room: (any ReplicatedRoom)?
        /// What hands an event to `room`.
        var apply: (@Sendable (ClusterRoomEvent) -> Void)?
        var buffer: [ClusterRoomEvent] = []
        var buffering = true
    }

    /// The room's name.
    let name: String
    /// Loads, resets and release of this room, in call order.
    let queue = SerialTaskQueue()
    /// Signals published from this node to the room, in call order (apart from `queue`, so that signals
    /// never wait for patches to be sequenced).
    let signals = SerialTaskQueue()
    private let state = Locked(State())

    init(name: String) {
        self.name = name
    }

    /// The room attached, if any.
    var room: (any ReplicatedRoom)? { state.withLock { $0.room } }

    /// Detaches the current room and keeps events from now on until the next `attach`.
    func beginBuffering() { detach(buffering: true) }

    /// Hands the kept events to `room` through `apply` (the room skips revs it already holds), then
    /// forwards every event at once.
    func attach(_ room: any ReplicatedRoom, apply: @escaping @Sendable (ClusterRoomEvent) -> Void) {
        state.withLock { state in
            for event in state.buffer { apply(event) }
            state.buffer = []
            state.buffering = false
            state.room = room
            state.apply = apply
        }
    }

    /// Forgets the room and any kept events; unless `buffering`, drops events until the next
    /// `beginBuffering()` (the room was released, or its load failed).
    func detach(buffering: Bool = false) {
        state.withLock { state in
            state.room = nil
            state.apply = nil
            state.buffer = []
            state.buffering = buffering
        }
    }

    /// The engine's listener: called on the engine's executor, in rev order.
    func receive(_ event: ClusterRoomEvent) {
        state.withLock { state in
            if state.buffering {
                state.buffer.append(event)
            } else {
                state.apply?(event)
            }
        }
    }
}
