/// One message on a room's change channel (`P:{R}:changes`, sharded Pub/Sub): how followers learn what
/// changed in a room without reading every room they follow.
///
/// Wire form: a kind byte, then fields, each `length:bytes` (the length in decimal ASCII), so any
/// bytes may appear in a field. `P` epoch, then six fields per appended entry (rev, user, client, seq,
/// time, ops): entries appended by one script call, in rev order. `E` epoch: the room's epoch changed
/// (empty: the room is gone). `S` node, payload: an ephemeral signal of that node's.
enum RoomChangeMessage: Sendable, Equatable {
    /// Entries appended to the room's log by one call, contiguous and in rev order.
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
        case UInt8(ascii: "P"):
            guard let epoch = reader.string() else { return nil }
            var patches: [SequencedPatch] = []
            while !reader.atEnd {
                guard let rev = reader.integer(), let user = reader.string(), let client = reader.string(), let seq = reader.integer(),
                      let time = reader.integer(), let ops = reader.field() else { return nil }
                patches.append(SequencedPatch(epoch: epoch, rev: rev, user: user, client: client, seq: seq, ops: ops, time: time))
            }
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

    /// The wire form (the scripts build `P` and `E` messages themselves; this encodes any kind).
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        func field(_ value: some Collection<UInt8>) {
            bytes += Array(String(value.count).utf8)
            bytes.append(UInt8(ascii: ":"))
            bytes += value
        }
        switch self {
        case .patches(let patches):
            bytes.append(UInt8(ascii: "P"))
            field(Array((patches.first?.epoch ?? "").utf8))
            for patch in patches {
                field(Array(String(patch.rev).utf8))
                field(Array(patch.user.utf8))
                field(Array(patch.client.utf8))
                field(Array(String(patch.seq).utf8))
                field(Array(String(patch.time).utf8))
                field(patch.ops)
            }
        case .epoch(let epoch):
            bytes.append(UInt8(ascii: "E"))
            field(Array((epoch ?? "").utf8))
        case .signal(let signal):
            bytes.append(UInt8(ascii: "S"))
            field(Array(signal.node.utf8))
            field(signal.payload)
        }
        return bytes
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
