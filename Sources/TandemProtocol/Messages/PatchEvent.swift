/// An applied change as the server broadcasts it (`patch` server message, and each element of
/// `welcome.replay`): the ops sent by `client` of `user` with its `seq`, applied at `rev`.
///
/// A server applies a patch's ops once and encodes them once: the event carries that encoding
/// (`encodedOps`) into storage, the replay history and every connection's frame. Two events are equal
/// when their fields and ops are, whether or not they carry the encoding.
public struct PatchEvent: Sendable, Hashable {
    /// The room revision this patch produced (revs count applied patches, from 1).
    public var rev: Int64
    /// The author's user id.
    public var user: String
    /// The author's client id.
    public var client: String
    /// The author's per-client sequence number.
    public var seq: Int64
    /// The ops, in the order they were applied.
    public var ops: [PatchOp] {
        didSet { encodedOps = nil }
    }
    /// `ops` as a compact JSON array, when the event was made with it (changing `ops` drops it).
    public private(set) var encodedOps: [UInt8]?

    /// Creates an event.
    public init(rev: Int64, user: String, client: String, seq: Int64, ops: [PatchOp]) {
        self.rev = rev
        self.user = user
        self.client = client
        self.seq = seq
        self.ops = ops
    }

    /// Creates an event that carries its ops already encoded: `encodedOps` must be what
    /// `PatchOp.write(ops, into:)` writes (or JSON text that parses to `ops`); it is written as it is.
    public init(rev: Int64, user: String, client: String, seq: Int64, ops: [PatchOp], encodedOps: [UInt8]) {
        self.init(rev: rev, user: user, client: client, seq: seq, ops: ops)
        self.encodedOps = encodedOps
    }

    public static func == (lhs: PatchEvent, rhs: PatchEvent) -> Bool {
        lhs.rev == rhs.rev && lhs.seq == rhs.seq && lhs.user == rhs.user && lhs.client == rhs.client && lhs.ops == rhs.ops
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rev)
        hasher.combine(seq)
        hasher.combine(user)
        hasher.combine(client)
        hasher.combine(ops)
    }

    /// The author's connection identity.
    public var author: Peer { Peer(user: user, client: client) }

    /// Appends the event as a complete `patch` server message (members `type`, `rev`, `user`,
    /// `client`, `seq`, `ops`). The server can encode it once and send the same bytes to every
    /// connection of the room.
    public func write(into out: inout [UInt8]) {
        JSONWriter.raw(#"{"type":"patch","rev":"#, into: &out)
        JSONWriter.write(integer: rev, into: &out)
        JSONWriter.raw(#","user":"#, into: &out)
        JSONWriter.write(string: user, into: &out)
        JSONWriter.raw(#","client":"#, into: &out)
        JSONWriter.write(string: client, into: &out)
        JSONWriter.raw(#","seq":"#, into: &out)
        JSONWriter.write(integer: seq, into: &out)
        JSONWriter.raw(#","ops":"#, into: &out)
        if let encodedOps {
            out.append(contentsOf: encodedOps)
        } else {
            PatchOp.write(ops, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads an event from a `patch` object; `type` is not checked, so replay entries may
    /// omit it.
    init(reading fields: FieldReader) throws(MessageDecodingError) {
        rev = try fields.count("rev")
        user = try fields.string("user")
        client = try fields.string("client")
        seq = try fields.count("seq")
        ops = try fields.ops("ops")
    }
}
