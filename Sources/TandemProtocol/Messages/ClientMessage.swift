/// A message of protocol v1 sent by a client to the server.
///
/// `decode` is strict about the fields it uses (missing or wrong-typed ones are errors naming
/// the field) and ignores unknown ones; `encode` writes compact JSON with `type` first.
public enum ClientMessage: WireMessage {
    /// Opens the session.
    case hello(Hello)
    /// A reliable change; `seq` strictly increases per client id, across reconnects. `base`, when
    /// present, is the rev the ops were made on (the author's confirmed rev with its earlier pending
    /// patches on top): the server rebases the ops over what other clients applied after it
    /// (`PatchRebase`). Without it the ops apply as they are.
    case patch(seq: Int64, ops: [PatchOp], base: Int64? = nil)
    /// Ephemeral per-participant data (an object).
    case presence(data: JSONValue)
    /// An ephemeral event for the other participants, never stored.
    case signal(event: String, data: JSONValue)
    /// A heartbeat; answered by `pong` with the same `t`.
    case ping(t: Double)
    /// A fresh token for the open connection (same user, room and role as the `hello`'s), sent before
    /// the current one expires: the server then keeps the connection open until the new `exp`.
    case refresh(token: String)

    /// The wire `type` of this message.
    public var type: String {
        switch self {
        case .hello: "hello"
        case .patch: "patch"
        case .presence: "presence"
        case .signal: "signal"
        case .ping: "ping"
        case .refresh: "refresh"
        }
    }

    /// Appends the message's JSON text to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .hello(let hello):
            JSONWriter.raw(#"{"type":"hello","token":"#, into: &out)
            JSONWriter.write(string: hello.token, into: &out)
            JSONWriter.raw(#","client":"#, into: &out)
            JSONWriter.write(string: hello.client, into: &out)
            if let resume = hello.resume {
                JSONWriter.raw(#","resume":{"epoch":"#, into: &out)
                JSONWriter.write(string: resume.epoch, into: &out)
                JSONWriter.raw(#","rev":"#, into: &out)
                JSONWriter.write(integer: resume.rev, into: &out)
                out.append(UInt8(ascii: "}"))
            }
            if let presence = hello.presence {
                JSONWriter.raw(#","presence":"#, into: &out)
                JSONWriter.write(presence, into: &out)
            }
        case .patch(let seq, let ops, let base):
            JSONWriter.raw(#"{"type":"patch","seq":"#, into: &out)
            JSONWriter.write(integer: seq, into: &out)
            if let base {
                JSONWriter.raw(#","base":"#, into: &out)
                JSONWriter.write(integer: base, into: &out)
            }
            JSONWriter.raw(#","ops":"#, into: &out)
            PatchOp.write(ops, into: &out)
        case .presence(let data):
            JSONWriter.raw(#"{"type":"presence","data":"#, into: &out)
            JSONWriter.write(data, into: &out)
        case .signal(let event, let data):
            JSONWriter.raw(#"{"type":"signal","event":"#, into: &out)
            JSONWriter.write(string: event, into: &out)
            JSONWriter.raw(#","data":"#, into: &out)
            JSONWriter.write(data, into: &out)
        case .ping(let t):
            JSONWriter.raw(#"{"type":"ping","t":"#, into: &out)
            JSONWriter.write(number: t, into: &out)
        case .refresh(let token):
            JSONWriter.raw(#"{"type":"refresh","token":"#, into: &out)
            JSONWriter.write(string: token, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Decodes a client message from an already parsed JSON value.
    ///
    /// A `patch` whose `seq` is readable but whose `ops` are not valid throws
    /// `.invalidPatch(seq:_:)` so the server can `reject` that seq.
    public static func decode(_ value: JSONValue) throws(MessageDecodingError) -> ClientMessage {
        guard case .object(let members) = value else { throw .notAnObject }
        return try decode(FieldReader(members))
    }

    private static func decode(_ fields: FieldReader) throws(MessageDecodingError) -> ClientMessage {
        let type = try fields.string("type")
        switch type {
        case "hello":
            var resume: ResumePoint?
            if fields.has("resume") {
                let point = try fields.nested("resume")
                resume = ResumePoint(epoch: try point.string("epoch"), rev: try point.count("rev"))
            }
            return .hello(Hello(
                token: try fields.string("token"), client: try fields.nonEmptyString("client"), resume: resume,
                presence: try fields.optionalObject("presence")))
        case "patch":
            let seq = try fields.count("seq")
            let base = fields.has("base") ? try fields.count("base") : nil
            do {
                return .patch(seq: seq, ops: try PatchOp.list(from: fields.members["ops"] ?? .null), base: base)
            } catch {
                throw .invalidPatch(seq: seq, error)
            }
        case "presence":
            return .presence(data: try fields.object("data"))
        case "signal":
            return .signal(event: try fields.string("event"), data: try fields.anyValue("data"))
        case "ping":
            return .ping(t: try fields.number("t"))
        case "refresh":
            return .refresh(token: try fields.string("token"))
        default:
            throw .unknownType(type)
        }
    }
}
