/// One message on a room's change channel (`P:{R}:changes`, sharded Pub/Sub): how followers learn what
/// changed in a room without reading every room they follow.
///
/// Wire form: a kind byte, then fields, each `length:bytes` (the length in decimal ASCII), so any
/// bytes may appear in a field. `B` epoch, first rev, time, then four fields per patch (user, client,
/// seq, ops; its rev is the first rev plus its place): one room batch appended by one script call, the
/// same bytes as its log entry. `E` epoch: the room's epoch changed (empty: the room is gone). `S`
/// node, payload: an ephemeral signal of that node's.
enum RoomChangeMessage: Sendable, Equatable {
    /// One batch appended to the room's log by one call: contiguous revs, one epoch and one time.
    case patches([SequencedPatch])
    /// The room's epoch is now this one (nil: the room no longer exists in Redis).
    case epoch(String?)
    /// A signal published by a node.
    case signal(RoomSignal)

    /// Decodes a message; nil when the bytes are not a well-formed message (a follower then reads the
    /// room's log instead).
    init?(_ bytes: [UInt8]) {
        guard let kind = bytes.first else { return nil }
        var reader = FieldReader(bytes: bytes, offset: 1)
        switch kind {
        case UInt8(ascii: "B"):
            guard let epoch = reader.string(), let first = reader.integer(), let time = reader.integer() else { return nil }
            var patches: [SequencedPatch] = []
            var rev = first
            while !reader.atEnd {
                guard let user = reader.string(), let client = reader.string(), let seq = reader.integer(), let ops = reader.field() else { return nil }
                patches.append(SequencedPatch(epoch: epoch, rev: rev, user: user, client: client, seq: seq, ops: ops, time: time))
                rev += 1
            }
            guard !patches.isEmpty else { return nil }
            self = .patches(patches)
        case UInt8(ascii: "E"):
            guard let epoch = reader.string(), reader.atEnd else { return nil }
            self = .epoch(epoch.isEmpty ? nil : epoch)
        case UInt8(ascii: "S"):
            guard let node = reader.string(), let payload = reader.field(), reader.atEnd else { return nil }
            self = .signal(RoomSignal(node: node, payload: payload))
        default:
            return nil
        }
    }

    /// The wire form (the scripts build `E` messages and, in the append script's long form, `B` messages themselves; this encodes any kind). A `B`
    /// message takes its first rev, epoch and time from its first patch.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .patches(let patches):
            Self.appendBatchHeader(epoch: patches.first?.epoch ?? "", first: patches.first?.rev ?? 0, time: patches.first?.time ?? 0, to: &bytes)
            for patch in patches { Self.appendRecord(user: patch.user, client: patch.client, seq: patch.seq, ops: patch.ops, to: &bytes) }
        case .epoch(let epoch):
            bytes.append(UInt8(ascii: "E"))
            Self.appendField(Array((epoch ?? "").utf8), to: &bytes)
        case .signal(let signal):
            bytes.append(UInt8(ascii: "S"))
            Self.appendField(Array(signal.node.utf8), to: &bytes)
            Self.appendField(signal.payload, to: &bytes)
        }
        return bytes
    }

    /// Appends the header of a `B` message (kind, epoch, first rev, time); the patches' records follow it.
    static func appendBatchHeader(epoch: String, first: Int64, time: Int64, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "B"))
        appendField(epoch.utf8, to: &bytes)
        appendField(String(first).utf8, to: &bytes)
        appendField(String(time).utf8, to: &bytes)
    }

    /// Appends one patch's record of a `B` message (user, client, seq, ops): the node builds it, the
    /// append script only joins the records of the patches it appended.
    static func appendRecord(user: String, client: String, seq: Int64, ops: [UInt8], to bytes: inout [UInt8]) {
        appendField(user.utf8, to: &bytes)
        appendField(client.utf8, to: &bytes)
        appendField(String(seq).utf8, to: &bytes)
        appendField(ops, to: &bytes)
    }

    /// Appends `length:bytes`.
    private static func appendField(_ value: some Collection<UInt8>, to bytes: inout [UInt8]) {
        bytes += String(value.count).utf8
        bytes.append(UInt8(ascii: ":"))
        bytes += value
    }

    /// Reads `length:bytes` fields.
    private struct FieldReader {
        let bytes: [UInt8]
        var offset: Int

        var atEnd: Bool { offset == bytes.count }

        mutating func field() -> [UInt8]? {
            var length = 0, digits = 0
            while offset < bytes.count, bytes[offset] != UInt8(ascii: ":") {
                let digit = Int(bytes[offset]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit), digits < 10 else { return nil }
                length = length * 10 + digit
                digits += 1
                offset += 1
            }
            guard digits > 0, offset < bytes.count, bytes.count - offset - 1 >= length else { return nil }
            offset += 1
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }

        mutating func string() -> String? {
            field().map { String(decoding: $0, as: UTF8.self) }
        }

        mutating func integer() -> Int64? {
            field().flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
        }
    }
}
