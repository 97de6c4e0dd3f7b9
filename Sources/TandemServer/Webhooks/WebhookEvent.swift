import TandemProtocol

/// One thing a backend is told about: a session starting or ending, a participant joining, leaving or
/// being removed, an invitation accepted, the state changing. Its body is the JSON object POSTed to
/// every webhook endpoint: `{"id","type","time","room", …the type's fields}`.
///
/// `id` is unique per event and stays the same across retries, so a receiver de-duplicates by it.
package struct WebhookEvent: Sendable, Equatable {
    /// The event types, as they appear in `type`.
    package enum Kind: String, Sendable, CaseIterable {
        /// The first participant joined a room nobody was in (before that participant's `participant.joined`).
        case roomStarted = "room.started"
        /// The last participant left, after the presence grace.
        case roomEnded = "room.ended"
        /// A participant was admitted (`user`, `client`, `role`, `name`).
        case participantJoined = "participant.joined"
        /// A participant left: closed cleanly, or dropped and not back within the presence grace.
        case participantLeft = "participant.left"
        /// The state changed (`rev`: the newest, `paths`: the ops' paths touched since the last one).
        case stateChanged = "state.changed"
        /// An invitation was accepted (`user`, `role`, `name`).
        case inviteAccepted = "invite.accepted"
        /// A host removed a user from the room (`user`, `by`).
        case participantRemoved = "participant.removed"
    }

    /// Unique per event: 32 hex digits.
    package var id: String
    package var kind: Kind
    /// When it happened, unix ms (the server's clock).
    package var time: Int64
    package var room: String
    /// The fields of the type, besides `id`, `type`, `time` and `room`.
    package var fields: [String: JSONValue]

    package init(id: String, kind: Kind, time: Int64, room: String, fields: [String: JSONValue] = [:]) {
        self.id = id
        self.kind = kind
        self.time = time
        self.room = room
        self.fields = fields
    }

    /// The JSON body sent to the endpoints.
    package var body: [UInt8] {
        var object = fields
        object["id"] = .string(id)
        object["type"] = .string(kind.rawValue)
        object["time"] = .number(Double(time))
        object["room"] = .string(room)
        return JSONValue.object(object).serializedBytes()
    }

    /// The longest path `state.changed` lists, in UTF-8 bytes: with at most `WebhookEmitter.maxPaths` of
    /// them an event stays well under what receivers take (64 KiB of paths), whatever the ops name.
    package static let maxPathBytes = 256

    /// The paths `ops` touch, as `state.changed` lists them: every op's path, a move's source too,
    /// `test` ops none. A path longer than `maxPathBytes` is listed as its longest ancestor that fits
    /// (still true: something under it changed).
    package static func touchedPaths(_ ops: [PatchOp]) -> [String] {
        var paths: [String] = []
        for op in ops {
            if case .test = op { continue }
            paths.append(listed(op.path))
            if case .move(let from, _) = op { paths.append(listed(from)) }
        }
        return paths
    }

    private static func listed(_ path: JSONPointer) -> String {
        var text = path.description
        guard text.utf8.count > maxPathBytes else { return text }
        var tokens = path.tokens
        repeat {
            tokens.removeLast()
            text = JSONPointer(tokens: tokens).description
        } while text.utf8.count > maxPathBytes
        return text
    }

    /// The fields describing a participant: `user`, `client`, `role` and `name` when it has one.
    package static func participantFields(_ participant: Participant) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["user": .string(participant.user), "client": .string(participant.client),
                                           "role": .string(participant.role.rawValue)]
        if let name = participant.name { fields["name"] = .string(name) }
        return fields
    }
}
