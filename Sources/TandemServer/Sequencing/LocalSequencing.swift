import TandemProtocol

/// Sequencing on this server alone: rooms are restored from (or created in) the server's store, and
/// each is sequenced by a `LocalRoomSequencer` on the same commit queue.
struct LocalSequencing: SequencingService {
    let commits: CommitQueue
    let settings: RoomSettings
    let logger: Logger
    /// A new epoch's name.
    var makeEpoch: @Sendable () -> String = RoomRegistry.randomEpoch

    var summary: String { "off" }
    var nodeID: String? { nil }

    func load(_ room: String, completion: @escaping @Sendable (Result<(RoomCore, any RoomSequencer), StorageError>) -> Void) {
        let sequencer = LocalRoomSequencer(name: room, commits: commits, wallClock: settings.wallClock)
        commits.read({ (store) throws(StorageError) -> RoomRecord? in try store.loadRoom(room) }) { [self] result in
            switch result {
            case .failure(let error):
                logger.error("room.load_failed", LogField("room", room), LogField("error", error.description))
                completion(.failure(error))
            case .success(let record?):
                do throws(RoomRestoreError) {
                    let core = try RoomCore.restore(from: record, settings: settings.core, now: settings.wallClock())
                    let limit = settings.core.limits.maxDepth
                    if core.document.root.depth(exceeding: limit) == nil {
                        // Stored before the limit was this low: it is served as it is; writes that land deeper are refused.
                        logger.warning("room.deeper_than_limit", LogField("room", room), LogField("depth", "\(core.document.root.depth)"),
                                       LogField("limit", "\(limit)"))
                    }
                    completion(.success((core, sequencer)))
                } catch {
                    // The stored history cannot be trusted: start a new epoch so every client
                    // takes a fresh snapshot rather than resuming onto a broken history.
                    logger.error("room.restore_failed", LogField("room", room), LogField("error", error.description))
                    create(room, sequencer: sequencer, completion: completion)
                }
            case .success(nil):
                create(room, sequencer: sequencer, completion: completion)
            }
        }
    }

    private func create(_ room: String, sequencer: LocalRoomSequencer,
                        completion: @escaping @Sendable (Result<(RoomCore, any RoomSequencer), StorageError>) -> Void) {
        let (core, write) = RoomCore.create(name: room, epoch: makeEpoch(), settings: settings.core)
        commits.write([write]) { [logger] result in
            switch result {
            case .success:
                logger.info("room.created", LogField("room", room), LogField("epoch", core.epoch))
                completion(.success((core, sequencer)))
            case .failure(let error):
                logger.error("room.create_failed", LogField("room", room), LogField("error", error.description))
                completion(.failure(error))
            }
        }
    }

    func unload(_ room: String) {}
    func check() async throws(ServerStartError) {}
    func cancel() {}
    func shutdown() async {}
}
