/// The `welcome` server message: the session is established, and this is where the client
/// stands.
public struct Welcome: Sendable, Hashable {
    /// How the client catches up with the room.
    public enum Sync: Sendable, Hashable {
        /// The full document at `rev` (a fresh join, or a resume outside the history window or
        /// from another epoch).
        case state(JSONValue)
        /// The patches after the client's resume rev, in rev order, ending at `rev`.
        case replay([PatchEvent])
    }

    /// The room history's id; it changes whenever continuity is lost.
    public var epoch: String
    /// The room's current revision.
    public var rev: Int64
    /// The snapshot or the replay.
    public var sync: Sync
    /// The last seq applied from this client id (0 when none).
    public var lastSeq: Int64
    /// The room no longer remembers this client id's progress (its record expired or was evicted), so
    /// `lastSeq` is 0 without meaning "nothing applied". With a `state` welcome the client cannot tell
    /// which of the patches it sent before were applied and must not send them again; with a `replay`,
    /// its own patches in the replay were applied and the others were not.
    public var forgotten: Bool
    /// Who the server recognised this connection as.
    public var you: SessionIdentity
    /// Everyone in the room, this connection included, in the shape of `join`.
    public var participants: [Participant]
    /// The heartbeat the server expects.
    public var heartbeat: HeartbeatSettings
    /// The limits the server enforces.
    public var limits: SessionLimits

    /// Creates a welcome.
    public init(
        epoch: String, rev: Int64, sync: Sync, lastSeq: Int64, forgotten: Bool = false, you: SessionIdentity,
        participants: [Participant], heartbeat: HeartbeatSettings = HeartbeatSettings(), limits: SessionLimits = SessionLimits()
    ) {
        self.epoch = epoch
        self.rev = rev
        self.sync = sync
        self.lastSeq = lastSeq
        self.forgotten = forgotten
        self.you = you
        self.participants = participants
        self.heartbeat = heartbeat
        self.limits = limits
    }

    func write(into out: inout [UInt8]) {
        JSONWriter.raw(#"{"type":"welcome","epoch":"#, into: &out)
        JSONWriter.write(string: epoch, into: &out)
        JSONWriter.raw(#","rev":"#, into: &out)
        JSONWriter.write(integer: rev, into: &out)
        switch sync {
        case .state(let state):
            JSONWriter.raw(#","state":"#, into: &out)
            JSONWriter.write(state, into: &out)
        case .replay(let events):
            JSONWriter.raw(#","replay":["#, into: &out)
            for (index, event) in events.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                event.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        JSONWriter.raw(#","lastSeq":"#, into: &out)
        JSONWriter.write(integer: lastSeq, into: &out)
        if forgotten { JSONWriter.raw(#","forgotten":true"#, into: &out) }
        JSONWriter.raw(#","you":{"user":"#, into: &out)
        JSONWriter.write(string: you.user, into: &out)
        JSONWriter.raw(#","client":"#, into: &out)
        JSONWriter.write(string: you.client, into: &out)
        JSONWriter.raw(#","role":"#, into: &out)
        JSONWriter.write(string: you.role.rawValue, into: &out)
        JSONWriter.raw(#"},"participants":["#, into: &out)
        for (index, participant) in participants.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "{"))
            participant.writeMembers(into: &out)
            out.append(UInt8(ascii: "}"))
        }
        JSONWriter.raw(#"],"heartbeat":{"interval":"#, into: &out)
        JSONWriter.write(integer: Int64(heartbeat.interval), into: &out)
        JSONWriter.raw(#","timeout":"#, into: &out)
        JSONWriter.write(integer: Int64(heartbeat.timeout), into: &out)
        JSONWriter.raw(#"},"limits":{"rate":"#, into: &out)
        JSONWriter.write(number: limits.rate, into: &out)
        JSONWriter.raw(#","burst":"#, into: &out)
        JSONWriter.write(integer: Int64(limits.burst), into: &out)
        JSONWriter.raw(#","maxMessage":"#, into: &out)
        JSONWriter.write(integer: Int64(limits.maxMessage), into: &out)
        JSONWriter.raw(#","maxOps":"#, into: &out)
        JSONWriter.write(integer: Int64(limits.maxOps), into: &out)
        JSONWriter.raw(#","maxDocument":"#, into: &out)
        JSONWriter.write(integer: Int64(limits.maxDocument), into: &out)
        JSONWriter.raw(#","maxDepth":"#, into: &out)
        JSONWriter.write(integer: Int64(limits.maxDepth), into: &out)
        JSONWriter.raw(#"}}"#, into: &out)
    }

    init(reading fields: FieldReader) throws(MessageDecodingError) {
        epoch = try fields.string("epoch")
        rev = try fields.count("rev")
        switch (fields.has("state"), fields.has("replay")) {
        case (true, false): sync = .state(try fields.object("state"))
        case (false, true): sync = .replay(try fields.list("replay") { (entry) throws(MessageDecodingError) in try PatchEvent(reading: entry) })
        case (true, true): throw .invalidField("state", expected: "absent when \"replay\" is present")
        case (false, false): throw .missingField("state")
        }
        lastSeq = try fields.count("lastSeq")
        forgotten = fields.has("forgotten") ? try fields.bool("forgotten") : false
        let identity = try fields.nested("you")
        you = SessionIdentity(user: try identity.string("user"), client: try identity.string("client"), role: try identity.role("role"))
        participants = try fields.list("participants") { (entry) throws(MessageDecodingError) in try Participant(reading: entry) }
        let beat = try fields.nested("heartbeat")
        heartbeat = HeartbeatSettings(interval: try beat.int("interval"), timeout: try beat.int("timeout"))
        let bounds = try fields.nested("limits")
        let rate = try bounds.number("rate")
        // 0 announces a server whose rate limit is off.
        guard rate >= 0 else { throw .invalidField(bounds.name("rate"), expected: "a number of messages per second, 0 for no limit") }
        limits = SessionLimits(
            rate: rate, burst: try bounds.int("burst"), maxMessage: try bounds.int("maxMessage"),
            maxOps: try bounds.int("maxOps"), maxDocument: try bounds.int("maxDocument"),
            maxDepth: bounds.has("maxDepth") ? try bounds.int("maxDepth") : PatchLimits.deepestAllowed)
    }
}

extension Participant {
    /// Appends `"user":…,"client":…,"role":…[,"name":…],"data":…` (no braces).
    func writeMembers(into out: inout [UInt8]) {
        JSONWriter.raw(#""user":"#, into: &out)
        JSONWriter.write(string: user, into: &out)
        JSONWriter.raw(#","client":"#, into: &out)
        JSONWriter.write(string: client, into: &out)
        JSONWriter.raw(#","role":"#, into: &out)
        JSONWriter.write(string: role.rawValue, into: &out)
        if let name {
            JSONWriter.raw(#","name":"#, into: &out)
            JSONWriter.write(string: name, into: &out)
        }
        JSONWriter.raw(#","data":"#, into: &out)
        JSONWriter.write(data, into: &out)
    }

    init(reading fields: FieldReader) throws(MessageDecodingError) {
        self.init(
            user: try fields.string("user"), client: try fields.string("client"), role: try fields.role("role"),
            name: try fields.optionalString("name"), data: try fields.object("data"))
    }
}
