import TandemWire

/// Who gives the server's rooms their revs: this server alone (`local`), or a cluster of servers that
/// share a log (the `TandemCluster` module's `cluster`). Pass it to `SyncServer.init`.
///
/// The choice is made once, at start; every room of the server is sequenced the same way.
public struct RoomSequencing: Sendable {
    /// Makes the server's sequencing service once the server's parts exist.
    package let make: @Sendable (SequencingContext) throws(ServerStartError) -> any SequencingService

    /// Wraps a factory (for the cluster module).
    package init(make: @escaping @Sendable (SequencingContext) throws(ServerStartError) -> any SequencingService) {
        self.make = make
    }

    /// This server alone: each room's revs are given here and made durable in the server's store
    /// (acks only after the commit). A configuration that names a Redis (`redisURL`) is refused: it asks
    /// for the cluster's sequencing.
    public static var local: RoomSequencing {
        RoomSequencing { (context) throws(ServerStartError) in
            if let url = context.configuration.redisURL {
                throw .cluster("the configuration names Redis at \(url), but the server was started to run alone; pass `sequencing: .cluster` (TandemCluster)")
            }
            return LocalSequencing(commits: context.commits, settings: context.rooms, logger: context.logger)
        }
    }
}

/// What a sequencing service may use of the server it serves.
package struct SequencingContext: Sendable {
    /// The server's configuration (cluster settings among them).
    package var configuration: ServerConfiguration
    /// The server's event loops (a cluster's Redis connections run on them).
    package var group: EventLoopGroup
    /// The server's store, behind its single writer.
    package var commits: CommitQueue
    /// What rooms need from the configuration.
    package var rooms: RoomSettings
    /// The server's log.
    package var logger: Logger
}

/// Opens rooms for the registry and makes each one's `RoomSequencer`: the server-wide half of
/// sequencing. Thread-safe.
package protocol SequencingService: Sendable {
    /// How the server describes it at start (`"off"` alone, the cluster's address and node name otherwise).
    var summary: String { get }

    /// This node's name in a cluster; nil alone.
    var nodeID: String? { get }

    /// Opens `room`: its state as storage (or the cluster) holds it, and the sequencer that serves it.
    /// `completion` runs once, on any thread.
    func load(_ room: String, completion: @escaping @Sendable (Result<(RoomCore, any RoomSequencer), StorageError>) -> Void)

    /// The room's last participant is gone and its instance was dropped from memory: stop following it.
    /// Called under the registry's lock, so a later load of the same room is requested after it.
    func unload(_ room: String)

    /// Checks, once after start, that what the service depends on answers (a cluster's Redis).
    func check() async throws(ServerStartError)

    /// Stops without waiting: the server could not start, and no room was ever opened.
    func cancel()

    /// Finishes the work under way and stops (server shutdown, after every connection closed).
    func shutdown() async

    /// Where the rooms API reads and deletes rooms this server shares with others; nil alone (the API
    /// uses this server's store).
    var sharedRooms: (any SharedRooms)? { get }

    /// Where removals are shared with the other servers (a cluster's Redis); nil alone (this server's store).
    var sharedRemovals: (any SharedRemovals)? { get }

    /// The webhooks of servers that share rooms (each event decided once and delivered by one of
    /// them); nil alone (the server's own queue).
    func webhooks(_ setup: WebhookSetup) -> (any WebhookService)?
}

extension SequencingService {
    /// None: the rooms live in this server's store.
    package var sharedRooms: (any SharedRooms)? { nil }

    /// None: removals live in this server's store.
    package var sharedRemovals: (any SharedRemovals)? { nil }

    /// None: the server delivers its own events.
    package func webhooks(_ setup: WebhookSetup) -> (any WebhookService)? { nil }
}
