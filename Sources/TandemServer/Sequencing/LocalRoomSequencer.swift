import TandemProtocol

/// Sequences one room on this server: `RoomCore` gives each patch its rev at once, the commit queue
/// makes it durable, and the room releases it (ack, fan-out) only after the commit.
///
/// Commit completions run in submission order, so releases reach the room in rev order.
struct LocalRoomSequencer: RoomSequencer {
    let name: String
    let commits: CommitQueue
    /// Unix milliseconds: when the room heard from a client.
    let wallClock: @Sendable () -> Int64

    func attach(_ room: any ReplicatedRoom) {}

    func submit(_ patch: SubmittedPatch, core: inout RoomCore, outcomes room: any RoomOutcomes) -> SubmitDecision {
        let author = patch.author.peer
        if let ifRev = patch.ifRev, ifRev != core.rev { return .conflict(rev: core.rev) }
        switch core.submit(seq: patch.seq, ops: patch.ops, base: patch.base, author: patch.author, now: wallClock()) {
        case .applied(let event, let writes, _):
            commits.write(writes) { result in
                switch result {
                case .success: room.release(event)
                case .failure(let error): room.storageFailed(error, rev: event.rev)
                }
            }
            return .awaiting
        case .duplicate(let seq, let rev?):
            return .answer(.ack(seq: seq, rev: rev, duplicate: true))
        case .duplicate(let seq, nil):
            // A seq older than the stored history gets the current rev, as the protocol says.
            // Every patch up to `fallback` was queued before this read, so it is released when the answer comes.
            let fallback = core.rev
            commits.read({ [name] (store) throws(StorageError) -> Int64 in
                try store.revision(room: name, author: author, seq: seq) ?? fallback
            }) { result in
                room.settle(.ack(seq: seq, rev: (try? result.get()) ?? fallback, duplicate: true), seq: seq, author: author)
            }
            return .awaiting
        case .rejected(let seq, let error):
            return .answer(.reject(seq: seq, code: error.code, message: error.description))
        }
    }

    func history(after: Int64, through: Int64, completion: @escaping @Sendable (Result<[PatchEvent], SequencingError>) -> Void) {
        commits.read({ [name] (store) throws(StorageError) -> [StoredPatch] in
            try store.patches(room: name, after: after, limit: Int(through - after))
        }) { [name] result in
            do {
                let events = try result.get().map(PatchEvent.init(stored:))
                guard events.count == Int(through - after) else {
                    throw SequencingError.historyLost("room '\(name)': storage holds \(events.count) of the \(through - after) patches after rev \(after)")
                }
                completion(.success(events))
            } catch let error as StorageError {
                completion(.failure(.storage(error)))
            } catch let error as SequencingError {
                completion(.failure(error))
            } catch {
                completion(.failure(.historyLost("room '\(name)': a stored patch is unreadable (\(error))")))
            }
        }
    }

    func publish(_ signal: ServerMessage) {}
    func participantLeft(_ peer: Peer) {}
}
