import TandemProtocol
import TandemRedis

/// A room batch in the append script's short form (`RoomSequencerScripts.append`): for a batch the node
/// expects Redis to append whole, the node builds what the script would otherwise build per patch (the
/// change message, the new revs, each client's progress), as they are if the room is still at the rev
/// the node checked the batch against. Redis then compares and writes, with no Lua work per patch.
///
/// Only a batch that can be appended whole has a short form: every entry valid in the node's eyes
/// (validated, no rejection of its own, within the size limit), seqs from 1 to 2^53 − 1, rising per
/// client within the batch. Anything else, and any batch Redis finds otherwise than expected, goes in
/// the long form, which decides every case.
struct AppendShortForm {
    /// The room's arguments, in the order the script reads them.
    let arguments: [RedisArgument]

    /// The short form of `entries` checked against the room at `epoch` and `rev`, or nil when the batch
    /// has none.
    /// - Parameters:
    ///   - checksRev: the batch may only be appended at `rev` (it was validated against that state);
    ///     otherwise it applies to any state and Redis shifts it past what other nodes appended.
    ///   - time: the time (unix ms) the same call passes the script.
    init?(_ entries: [SequencerEntry], epoch: String, rev: Int64, checksRev: Bool, validated: Bool, time: Int64,
          settings: RedisRoomSequencer.Settings) {
        guard validated, !entries.isEmpty else { return nil }
        // Per author, in order of first appearance: its first and last seq and the place of its last patch.
        var clients: [(author: Peer, first: Int64, last: Int64, place: Int64)] = []
        var index: [Peer: Int] = [:]
        for (place, entry) in entries.enumerated() {
            guard entry.localRejection == nil, entry.ops.count <= settings.maxPatchBytes, entry.seq >= 1, entry.seq <= 9_007_199_254_740_991 else {
                return nil
            }
            let author = Peer(user: entry.user, client: entry.client)
            if let known = index[author] {
                guard entry.seq > clients[known].last else { return nil }
                clients[known].last = entry.seq
                clients[known].place = Int64(place + 1)
            } else {
                index[author] = clients.count
                clients.append((author, entry.seq, entry.seq, Int64(place + 1)))
            }
        }
        let from = rev + 1, top = rev + Int64(entries.count)
        var message: [UInt8] = []
        RoomChangeMessage.appendBatchHeader(epoch: epoch, first: from, time: time, to: &message)
        let headerLength = message.count
        message.reserveCapacity(headerLength + entries.reduce(0) { $0 + $1.ops.count + $1.user.utf8.count + $1.client.utf8.count + 32 })
        for entry in entries {
            RoomChangeMessage.appendRecord(user: entry.user, client: entry.client, seq: entry.seq, ops: entry.ops, to: &message)
        }
        // The script's rule: the log keeps `window` revs, trimmed when the rev crosses a multiple of 64
        // (at every append below a window of 1,000).
        let window = Int64(settings.logLength)
        let trims = top - window >= 1 && (window < 1_000 || top / 64 != rev / 64)
        var arguments: [RedisArgument] = [
            "F", RedisArgument(epoch), RedisArgument(rev), checksRev ? "1" : "0", RedisArgument(Int64(clients.count)),
            RedisArgument(bytes: message), RedisArgument(Int64(headerLength)), RedisArgument(top), RedisArgument(from),
            trims ? RedisArgument(top - window + 1) : "",
        ]
        arguments.reserveCapacity(arguments.count + 3 * clients.count)
        for client in clients { arguments.append(RedisArgument(RoomKeys.progressField(author: client.author))) }
        for client in clients {
            arguments.append(RedisArgument("\(client.first - 1):"))
            arguments.append(RedisArgument("\(client.last):\(rev + client.place):\(time)"))
        }
        self.arguments = arguments
    }

    /// Decodes a room's reply to the short form: its outcomes, or nil when Redis sent it back (send it
    /// again in the long form).
    static func outcomes(_ reply: ArraySlice<RESPValue>, of batch: RedisRoomSequencer.RoomBatch) throws(RedisError) -> [SequencerOutcome]? {
        let start = reply.startIndex
        guard let epoch = batch.head?.epoch, let code = reply.first?.integer else {
            throw .unexpectedReply(command: "append script", reply: "\(Array(reply))")
        }
        switch (reply.count, code) {
        case (1, 0):
            return nil
        case (1, let from) where from > 0:
            return batch.entries.enumerated().map { place, entry in .applied(epoch: epoch, rev: from + Int64(place), seq: entry.seq) }
        case (2, -1):
            guard let rev = reply[start + 1].integer else { throw .unexpectedReply(command: "append script", reply: "\(Array(reply))") }
            return [.behind(epoch: epoch, rev: rev)] + Array(repeating: .skipped, count: batch.entries.count - 1)
        default:
            throw .unexpectedReply(command: "append script", reply: "\(Array(reply))")
        }
    }
}
