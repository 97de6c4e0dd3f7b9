import TandemProtocol
import TandemServer

/// Something a node saw that may become webhook events, as it reports it to Redis. The report script
/// decides, atomically and for the whole cluster, which events follow: a join of a room nobody is in
/// starts a session, the leave of its last member ends it, changes share one window per room.
enum WebhookFact: Sendable, Equatable {
    /// A participant connected to the reporting node was admitted. Reported again for a client the
    /// cluster already counts (a reconnect to another node, a re-report), it only records the node.
    case joined(room: String, participant: Participant)
    /// A participant connected to the reporting node left. Ignored when the cluster counts that client
    /// on another node (it reconnected there) or not at all (already reported, e.g. reaped).
    case left(room: String, participant: Participant)
    /// Patches made through the reporting node, up to `rev`, touched `paths` (`truncated` when more
    /// were touched than a window lists).
    case changed(room: String, rev: Int64, paths: Set<String>, truncated: Bool)
    /// An event that needs no cluster-wide decision (`invite.accepted`, `participant.removed`).
    case event(room: String, kind: WebhookEvent.Kind, fields: [String: JSONValue])

    /// The room the fact is about.
    var room: String {
        switch self {
        case .joined(let room, _), .left(let room, _), .changed(let room, _, _, _), .event(let room, _, _): room
        }
    }

    /// The script's arguments for this fact: kind, room, two values, a count and that many extras.
    var arguments: [String] {
        switch self {
        case .joined(let room, let participant):
            ["j", room, participant.client, Self.json(WebhookEvent.participantFields(participant)), "0"]
        case .left(let room, let participant):
            ["l", room, participant.client, Self.json(WebhookEvent.participantFields(participant)), "0"]
        case .changed(let room, let rev, let paths, let truncated):
            // Each path goes as its JSON string, so the script joins them into the event's array as they are.
            ["c", room, "\(rev)", truncated ? "1" : "0", "\(paths.count)"]
                + paths.sorted().map { String(decoding: JSONValue.string($0).serializedBytes(), as: UTF8.self) }
        case .event(let room, let kind, let fields):
            ["e", room, kind.rawValue, Self.json(fields), "0"]
        }
    }

    /// Merges a later change of the same room into this one; false when either is not a change.
    mutating func absorb(_ later: WebhookFact) -> Bool {
        guard case .changed(let room, let rev, var paths, var truncated) = self,
              case .changed(let laterRoom, let laterRev, let laterPaths, let laterTruncated) = later, room == laterRoom else { return false }
        truncated = truncated || laterTruncated
        for path in laterPaths where !paths.contains(path) {
            if paths.count < WebhookEmitter.maxPaths { paths.insert(path) } else { truncated = true }
        }
        self = .changed(room: room, rev: max(rev, laterRev), paths: paths, truncated: truncated)
        return true
    }

    private static func json(_ fields: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(fields).serializedBytes(), as: UTF8.self)
    }
}
