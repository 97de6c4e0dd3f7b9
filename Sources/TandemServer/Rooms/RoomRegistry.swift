import TandemSynchronization
import TandemProtocol

/// The rooms loaded in memory: opened on first join by the server's sequencing (restored from storage
/// or created; in a cluster, opened from the shared log), unloaded some time after the last participant left.
///
/// Thread-safe. Concurrent joins to a room that is loading wait for the one load.
package final class RoomRegistry: Sendable {
    private enum Entry {
        case loading([@Sendable (Result<Room, StorageError>) -> Void])
        case ready(Room)
    }

    private let rooms = Locked<[String: Entry]>([:])
    private let sequencing: any SequencingService
    private let scheduler: any TimerScheduler
    private let settings: RoomSettings
    private let metrics: ServerMetrics
    private let logger: Logger
    private let unloadDelay: Duration
    private let isDenied: @Sendable (_ room: String, _ user: String) -> Bool
    /// Given to every room (nil without webhooks).
    let webhooks: (any WebhookReporter)?

    init(sequencing: any SequencingService, scheduler: any TimerScheduler, settings: RoomSettings, metrics: ServerMetrics, logger: Logger,
         unloadDelay: Duration = .seconds(30), webhooks: (any WebhookReporter)? = nil,
         isDenied: @escaping @Sendable (_ room: String, _ user: String) -> Bool = { _, _ in false }) {
        self.isDenied = isDenied
        self.webhooks = webhooks
        self.sequencing = sequencing
        self.scheduler = scheduler
        self.settings = settings
        self.metrics = metrics
        self.logger = logger
        self.unloadDelay = unloadDelay
    }

    /// 16 random hex characters.
    package static func randomEpoch() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Number of rooms in memory.
    var loadedCount: Int { rooms.withLock { $0.count } }

    /// Calls `body` with the room named `name`, loading or creating it first if needed.
    func withRoom(_ name: String, _ body: @escaping @Sendable (Result<Room, StorageError>) -> Void) {
        let ready: Room? = rooms.withLock { rooms in
            switch rooms[name] {
            case .ready(let room) where !room.isRetired: return room
            case .ready:
                // Retired (unloaded while a join raced it, or broken by a storage failure):
                // load a fresh instance from storage.
                metrics.rooms.add(-1)
                rooms[name] = .loading([body])
                load(name)
                return nil
            case .loading(var waiters):
                waiters.append(body)
                rooms[name] = .loading(waiters)
                return nil
            case nil:
                rooms[name] = .loading([body])
                load(name)
                return nil
            }
        }
        if let ready { body(.success(ready)) }
    }

    /// The room named `name` if it is in memory (nobody is connected to a room that is not).
    func loadedRoom(_ name: String) -> Room? {
        rooms.withLock { rooms in
            if case .ready(let room)? = rooms[name] { room } else { nil }
        }
    }

    /// What `delete` found.
    enum Deletion: Sendable {
        /// The room is loading: ask again.
        case busy
        /// The delete is queued; `completion` follows.
        case queued
    }

    /// Deletes the room: its storage delete is queued under the registry's lock (after a read that says
    /// whether it was stored), so a later load reads storage after it and starts a new epoch; the loaded
    /// instance, if any, closes every connection with 4004 after an `error` `room_deleted`.
    /// `completion` gets whether a room was there, once the delete is durable.
    func delete(_ name: String, commits: CommitQueue, completion: @escaping @Sendable (Result<Bool, StorageError>) -> Void) -> Deletion {
        let outcome: (Deletion, Room?) = rooms.withLock { rooms in
            var loaded: Room?
            switch rooms[name] {
            case .loading: return (.busy, nil)
            case .ready(let room):
                rooms[name] = nil
                metrics.rooms.add(-1)
                sequencing.unload(name)
                loaded = room
            case nil: break
            }
            let wasLoaded = loaded != nil
            let stored = Locked(false)
            commits.read({ (store) throws(StorageError) -> Bool in try store.loadRoom(name) != nil }) { result in
                stored.withLock { $0 = (try? result.get()) ?? false }
            }
            commits.write([.deleteRoom(room: name)]) { result in
                completion(result.map { wasLoaded || stored.withLock { $0 } })
            }
            return (.queued, loaded)
        }
        outcome.1?.closeAll(.roomDeleted, error: .roomDeleted, message: "room '\(name)' was deleted")
        if outcome.1 != nil { logger.info("room.deleted", LogField("room", name)) }
        return outcome.0
    }

    /// The room was deleted elsewhere (a cluster's shared store): its loaded instance, if any, stops
    /// serving, every connection closed with 4004 after an `error` `room_deleted`.
    func closeDeleted(_ name: String) {
        guard let room = loadedRoom(name) else { return }
        room.stopServing(.roomDeleted, error: .roomDeleted, message: "room '\(name)' was deleted")
        logger.info("room.deleted", LogField("room", name))
    }

    /// Reports every loaded room's participants as left and its session as ended (server shutdown).
    func reportShutdown() {
        let loaded: [Room] = rooms.withLock { rooms in
            rooms.values.compactMap { if case .ready(let room) = $0 { room } else { nil } }
        }
        for room in loaded { room.reportShutdown() }
    }

    /// Closes every connection of every room (server shutdown).
    func closeAll(_ code: CloseCode, error: ErrorCode, message: String) {
        let loaded: [Room] = rooms.withLock { rooms in
            rooms.values.compactMap { if case .ready(let room) = $0 { room } else { nil } }
        }
        for room in loaded { room.closeAll(code, error: error, message: message) }
    }

    private func load(_ name: String) {
        sequencing.load(name) { [self] result in
            switch result {
            case .success(let (core, sequencer)):
                let room = Room(core: core, sequencer: sequencer, scheduler: scheduler, settings: settings, metrics: metrics, logger: logger,
                                isDenied: isDenied, webhooks: webhooks) { [weak self] room in
                    self?.roomBecameIdle(room)
                }
                sequencer.attach(room)
                finishLoading(name, with: .success(room))
            case .failure(let error):
                finishLoading(name, with: .failure(error))
            }
        }
    }

    private func finishLoading(_ name: String, with result: Result<Room, StorageError>) {
        let waiters: [@Sendable (Result<Room, StorageError>) -> Void] = rooms.withLock { rooms in
            guard case .loading(let waiters) = rooms[name] else { return [] }
            switch result {
            case .success(let room):
                rooms[name] = .ready(room)
                metrics.rooms.add(1)
            case .failure:
                rooms[name] = nil
            }
            return waiters
        }
        for waiter in waiters { waiter(result) }
    }

    private func roomBecameIdle(_ room: Room) {
        _ = scheduler.schedule(after: unloadDelay) { [weak self] in self?.unloadIfIdle(room) }
    }

    /// Drops `room` from memory if it is still the loaded instance and still empty. Its state
    /// is entirely in storage (snapshot + patches), so nothing is lost.
    func unloadIfIdle(_ room: Room) {
        rooms.withLock { rooms in
            guard case .ready(let current) = rooms[room.name], current === room, room.isRetired || room.retireIfIdle() else { return }
            rooms[room.name] = nil
            metrics.rooms.add(-1)
            // Under the lock: a load of the same room requested after this must queue behind the unload.
            sequencing.unload(room.name)
        }
        logger.debug("room.unloaded", LogField("room", room.name))
    }
}
