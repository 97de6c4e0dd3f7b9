/// A message of protocol v1 sent by the server to a client.
///
/// `decode` is strict about the fields it uses (missing or wrong-typed ones are errors naming
/// the field) and ignores unknown ones; `encode` writes compact JSON with `type` first,
/// directly into the caller's buffer without building an intermediate `JSONValue`.
public enum ServerMessage: WireMessage {
    /// The session is established.
    case welcome(Welcome)
    /// A change applied from another connection, in rev order.
    case patch(PatchEvent)
    /// Your patch `seq` was applied (and is durable) at `rev`; `duplicate` when that seq had
    /// been applied before (a resend after reconnect). `ops`, present only when the server rebased
    /// the patch (its `base` was behind), are the ops as applied: the client's confirmed state takes
    /// these rather than the ops it sent.
    case ack(seq: Int64, rev: Int64, duplicate: Bool, ops: [PatchOp]? = nil)
    /// Your patch `seq` was not applied; roll it back.
    case reject(seq: Int64, code: RejectCode, message: String)
    /// A participant arrived.
    case join(Participant)
    /// A participant's presence data changed.
    case presence(Peer, data: JSONValue)
    /// A participant left.
    case leave(Peer)
    /// An ephemeral event from another participant.
    case signal(from: Peer, event: String, data: JSONValue)
    /// The answer to `ping`, with the same `t`.
    case pong(t: Double)
    /// Something went wrong; a close frame follows when `code.closeCode` is not `nil`.
    case error(code: ErrorCode, message: String)

    /// The wire `type` of this message.
    public var type: String {
        switch self {
        case .welcome: "welcome"
        case .patch: "patch"
        case .ack: "ack"
        case .reject: "reject"
        case .join: "join"
        case .presence: "presence"
        case .leave: "leave"
        case .signal: "signal"
        case .pong: "pong"
        case .error: "error"
        }
    }

    /// Appends the message's JSON text to `out`.
    public func encode(into out: inout [UInt8]) {
        switch self {
        case .welcome(let welcome):
            welcome.write(into: &out)
            return
        case .patch(let event):
            event.write(into: &out)
            return
        case .ack(let seq, let rev, let duplicate, let ops):
            JSONWriter.raw(#"{"type":"ack","seq":"#, into: &out)
            JSONWriter.write(integer: seq, into: &out)
            JSONWriter.raw(#","rev":"#, into: &out)
            JSONWriter.write(integer: rev, into: &out)
            JSONWriter.raw(duplicate ? #","duplicate":true"# : #","duplicate":false"#, into: &out)
            if let ops {
                JSONWriter.raw(#","ops":"#, into: &out)
                PatchOp.write(ops, into: &out)
            }
        case .reject(let seq, let code, let message):
            JSONWriter.raw(#"{"type":"reject","seq":"#, into: &out)
            JSONWriter.write(integer: seq, into: &out)
            JSONWriter.raw(#","code":"#, into: &out)
            JSONWriter.write(string: code.wireValue, into: &out)
            JSONWriter.raw(#","message":"#, into: &out)
            JSONWriter.write(string: message, into: &out)
        case .join(let participant):
            JSONWriter.raw(#"{"type":"join","#, into: &out)
            participant.writeMembers(into: &out)
        case .presence(let peer, let data):
            JSONWriter.raw(#"{"type":"presence","#, into: &out)
            write(peer, into: &out)
            JSONWriter.raw(#","data":"#, into: &out)
            JSONWriter.write(data, into: &out)
        case .leave(let peer):
            JSONWriter.raw(#"{"type":"leave","#, into: &out)
            write(peer, into: &out)
        case .signal(let from, let event, let data):
            JSONWriter.raw(#"{"type":"signal","from":{"#, into: &out)
            write(from, into: &out)
            JSONWriter.raw(#"},"event":"#, into: &out)
            JSONWriter.write(string: event, into: &out)
            JSONWriter.raw(#","data":"#, into: &out)
            JSONWriter.write(data, into: &out)
        case .pong(let t):
            JSONWriter.raw(#"{"type":"pong","t":"#, into: &out)
            JSONWriter.write(number: t, into: &out)
        case .error(let code, let message):
            JSONWriter.raw(#"{"type":"error","code":"#, into: &out)
            JSONWriter.write(string: code.wireValue, into: &out)
            JSONWriter.raw(#","message":"#, into: &out)
            JSONWriter.write(string: message, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends `"user":…,"client":…`.
    private func write(_ peer: Peer, into out: inout [UInt8]) {
        JSONWriter.raw(#""user":"#, into: &out)
        JSONWriter.write(string: peer.user, into: &out)
        JSONWriter.raw(#","client":"#, into: &out)
        JSONWriter.write(string: peer.client, into: &out)
    }

    /// Decodes a server message from an already parsed JSON value.
    public static func decode(_ value: JSONValue) throws(MessageDecodingError) -> ServerMessage {
        guard case .object(let members) = value else { throw .notAnObject }
        return try decode(FieldReader(members))
    }

    private static func decode(_ fields: FieldReader) throws(MessageDecodingError) -> ServerMessage {
        let type = try fields.string("type")
        switch type {
        case "welcome":
            return .welcome(try Welcome(reading: fields))
        case "patch":
            return .patch(try PatchEvent(reading: fields))
        case "ack":
            return .ack(seq: try fields.count("seq"), rev: try fields.count("rev"), duplicate: try fields.bool("duplicate"),
                        ops: fields.has("ops") ? try fields.ops("ops") : nil)
        case "reject":
            return .reject(
                seq: try fields.count("seq"), code: RejectCode(wireValue: try fields.string("code")),
                message: try fields.string("message"))
        case "join":
            return .join(try Participant(reading: fields))
        case "presence":
            return .presence(try peer(fields), data: try fields.object("data"))
        case "leave":
            return .leave(try peer(fields))
        case "signal":
            return .signal(from: try peer(fields.nested("from")), event: try fields.string("event"), data: try fields.anyValue("data"))
        case "pong":
            return .pong(t: try fields.number("t"))
        case "error":
            return .error(code: ErrorCode(wireValue: try fields.string("code")), message: try fields.string("message"))
        default:
            throw .unknownType(type)
        }
    }

    private static func peer(_ fields: FieldReader) throws(MessageDecodingError) -> Peer {
        Peer(user: try fields.string("user"), client: try fields.string("client"))
    }
}
