import TandemProtocol
import TandemServer

/// Sequences one room through the cluster: a patch is appended to the room's log in Redis (which gives
/// its rev), and the room releases it when this node folds it from the log, so every node shows the
/// same order. Duplicates and rejects are answered once Redis decided, which is after every earlier
/// patch of the room was folded.
struct ClusterRoomSequencer: RoomSequencer {
    let name: String
    let node: ClusterNode
    let link: ClusterRoomLink

    func attach(_ room: any ReplicatedRoom) {
        link.attach(room) { [node] event in node.apply(event, to: room) }
    }

    func submit(_ patch: SubmittedPatch, core: inout RoomCore, outcomes room: any RoomOutcomes) -> SubmitDecision {
        let seq = patch.seq, client = patch.author.client, author = patch.author.peer
        // The HTTP API's writes get their seq from Redis; everyone else's seq must be 1 or more (seq 0 would
        // ask Redis for the next one).
        if patch.overHTTP, patch.author.role != .viewer { return submitHTTP(patch, room: room) }
        if let refusal = PatchAdmission.refusal(role: patch.author.role, seq: seq) {
            return .answer(.reject(seq: seq, code: refusal.code, message: refusal.description))
        }
        node.submit(room: name, client: client, user: patch.author.user, seq: seq, ops: patch.ops, base: patch.base) { [name, node] result in
            switch result {
            case .success(.applied):
                break // released (and acked) by the fold
            case .success(.duplicate(let rev)):
                room.settle(.ack(seq: seq, rev: rev, duplicate: true), seq: seq, author: author)
            case .success(.rejected(let reason)):
                let (code, message) = ClusterRejection.decode(reason)
                room.settle(.reject(seq: seq, code: code, message: message), seq: seq, author: author)
            case .success(.conflict):
                break // only the HTTP API's writes name an `ifRev`
            case .failure(let error):
                switch error {
                case .roomReset, .appliedThenReset: return // the reset closes everyone; the client resends
                default: break
                }
                node.logger.error("cluster.submit_failed", LogField("room", name), LogField("client", client), LogField("error", error.description))
                room.abandon(seq: seq, author: author,
                             message: "the cluster could not sequence your change (\(error.description)); reconnect to resume")
            }
        }
        return .awaiting
    }

    /// A write of the HTTP API: every node writes a subject's under the client id `http`, so Redis gives it
    /// that author's next seq (no node could pick one another node does not pick too), and the room learns its rev from the outcome.
    private func submitHTTP(_ patch: SubmittedPatch, room: any RoomOutcomes) -> SubmitDecision {
        let seq = patch.seq
        node.submit(room: name, client: patch.author.client, user: patch.author.user, seq: 0, ops: patch.ops, ifRev: patch.ifRev) { result in
            switch result {
            case .success(.applied(let rev)):
                room.httpSequenced(seq: seq, .applied(rev: rev), waitingForRelease: true)
            case .success(.conflict(let rev)):
                room.httpSequenced(seq: seq, .conflict(rev: rev), waitingForRelease: true)
            case .success(.rejected(let reason)):
                let (code, message) = ClusterRejection.decode(reason)
                room.httpSequenced(seq: seq, .refused(code, message: message), waitingForRelease: true)
            case .success(.duplicate):
                room.httpSequenced(seq: seq, .failed("the cluster took the write for a duplicate"), waitingForRelease: true)
            case .failure(.appliedThenReset(_, let rev)):
                // In the log, but this instance will not release it: answered now.
                room.httpSequenced(seq: seq, .applied(rev: rev), waitingForRelease: false)
            case .failure(.roomReset), .failure(.roomNotOpen):
                // Not appended (Redis lost or deleted the room, or this instance was reset): a fresh load
                // of the room takes the write.
                room.httpSequenced(seq: seq, .retired, waitingForRelease: true)
            case .failure(let error):
                room.httpSequenced(seq: seq, .failed("the cluster could not sequence the write; whether it was applied is unknown (read the room's history, or write with ifRev): \(error.description)"), waitingForRelease: true)
            }
        }
        return .awaiting
    }

    func history(after: Int64, through: Int64, completion: @escaping @Sendable (Result<[PatchEvent], SequencingError>) -> Void) {
        Task { [name, node] in
            do throws(ClusterError) {
                completion(.success(try await node.patches(room: name, after: after, through: through)))
            } catch {
                completion(.failure(.cluster(error.description)))
            }
        }
    }

    func publish(_ signal: ServerMessage) {
        node.publish(room: name, payload: signal.encoded())
    }

    func participantLeft(_ peer: Peer) {
        node.presence.left(room: name, peer: peer)
    }
}
