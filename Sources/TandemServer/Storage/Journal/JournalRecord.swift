import TandemProtocol

/// One group commit as the journal stores it: its position in the journal and the writes, in order.
///
/// Framing on disk: payload length (UInt32), CRC-32 of the rest (UInt32), position (UInt64), payload,
/// all little-endian. A record that a `kill -9` cut short, or that does not match its checksum, is
/// detected when the journal is read back and is never applied: nothing in it was acknowledged.
struct JournalRecord: Equatable, Sendable {
    /// Increases by one from record to record, across segment files; storage remembers the last one it
    /// holds, so a record is applied once however often recovery runs.
    var position: UInt64
    /// The writes of one `RoomStore.apply` call, applied atomically.
    var writes: [StorageWrite]

    /// Bytes before the payload: length, checksum, position.
    static let headerSize = 16
    /// The largest payload accepted when reading back: a length beyond it is a damaged header, not a record.
    static let maxPayload = 1 << 30

    /// `appendPatch` is the form of journals written before patches carried their time, `forgetClients`
    /// that of journals written before progress belonged to a user's client id; both are still read.
    private enum Tag: UInt8 {
        case createRoom = 1, appendPatch, snapshot, saveInvite, deleteInvite, saveDenial, deleteDenial, appendTimedPatch, forgetClients, deleteRoom, expireHistory
        case forgetAuthors
    }

    /// The framed bytes to append to a segment file.
    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Self.headerSize + writes.count * 96)
        out.append(contentsOf: repeatElement(0, count: 8))
        Self.put(position, into: &out)
        Self.put(UInt32(truncatingIfNeeded: writes.count), into: &out)
        for write in writes { Self.encode(write, into: &out) }
        let length = UInt32(truncatingIfNeeded: out.count - Self.headerSize)
        let checksum = CRC32.checksum(out[8...])
        for index in 0..<4 {
            out[index] = UInt8(truncatingIfNeeded: length >> (8 * index))
            out[4 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * index))
        }
        return out
    }

    /// How reading one record from `bytes` at an offset ended.
    enum Decoded: Equatable {
        /// A whole record and the offset just past it.
        case record(JournalRecord, next: Int)
        /// Nothing more: the offset is at the end of the bytes.
        case end
        /// The bytes stop inside a record, or its checksum does not match: a write that never completed.
        case torn
    }

    /// Reads the record that starts at `offset` of `bytes`.
    static func decode(_ bytes: [UInt8], at offset: Int) -> Decoded {
        guard offset < bytes.count else { return .end }
        guard bytes.count - offset >= headerSize else { return .torn }
        var reader = Reader(bytes: bytes, offset: offset)
        guard let length = reader.uint32(), let checksum = reader.uint32(), Int(length) <= maxPayload,
              bytes.count - offset - headerSize >= Int(length),
              CRC32.checksum(bytes[(offset + 8)..<(offset + headerSize + Int(length))]) == checksum else { return .torn }
        let end = offset + headerSize + Int(length)
        reader.end = end
        guard let position = reader.uint64(), let count = reader.uint32() else { return .torn }
        var writes: [StorageWrite] = []
        writes.reserveCapacity(Int(min(count, 4096)))
        for _ in 0..<count {
            guard let write = decodeWrite(&reader) else { return .torn }
            writes.append(write)
        }
        guard reader.offset == end else { return .torn }
        return .record(JournalRecord(position: position, writes: writes), next: end)
    }

    // MARK: - Writes

    private static func encode(_ write: StorageWrite, into out: inout [UInt8]) {
        switch write {
        case .createRoom(let room, let epoch, let snapshot):
            out.append(Tag.createRoom.rawValue)
            put(room, into: &out); put(epoch, into: &out); put(snapshot, into: &out)
        case .appendPatch(let patch):
            out.append(Tag.appendTimedPatch.rawValue)
            put(patch.room, into: &out); put(UInt64(bitPattern: patch.rev), into: &out)
            put(patch.user, into: &out); put(patch.client, into: &out)
            put(UInt64(bitPattern: patch.seq), into: &out); put(patch.ops, into: &out)
            put(UInt64(bitPattern: patch.time), into: &out)
        case .snapshot(let room, let rev, let state, let keepFrom):
            out.append(Tag.snapshot.rawValue)
            put(room, into: &out); put(UInt64(bitPattern: rev), into: &out)
            put(state, into: &out); put(UInt64(bitPattern: keepFrom), into: &out)
        case .saveInvite(let invite):
            out.append(Tag.saveInvite.rawValue)
            put(invite.code, into: &out); put(invite.room, into: &out); put(invite.role, into: &out)
            put(invite.createdBy, into: &out); put(UInt64(bitPattern: invite.createdAt), into: &out)
            put(UInt64(bitPattern: invite.expiresAt), into: &out)
            put(UInt64(bitPattern: Int64(invite.usesLeft)), into: &out); out.append(invite.revoked ? 1 : 0)
        case .deleteInvite(let code):
            out.append(Tag.deleteInvite.rawValue)
            put(code, into: &out)
        case .saveDenial(let denial):
            out.append(Tag.saveDenial.rawValue)
            put(denial.room, into: &out); put(denial.user, into: &out); put(UInt64(bitPattern: denial.until), into: &out)
        case .deleteDenial(let room, let user):
            out.append(Tag.deleteDenial.rawValue)
            put(room, into: &out); put(user, into: &out)
        case .forgetClients(let room, let authors):
            out.append(Tag.forgetAuthors.rawValue)
            put(room, into: &out); put(UInt32(truncatingIfNeeded: authors.count), into: &out)
            for author in authors { put(author.user, into: &out); put(author.client, into: &out) }
        case .deleteRoom(let room):
            out.append(Tag.deleteRoom.rawValue)
            put(room, into: &out)
        case .expireHistory(let room, let olderThan, let keepingFrom):
            out.append(Tag.expireHistory.rawValue)
            put(room, into: &out); put(UInt64(bitPattern: olderThan), into: &out); put(UInt64(bitPattern: keepingFrom), into: &out)
        }
    }

    private static func decodeWrite(_ reader: inout Reader) -> StorageWrite? {
        guard let raw = reader.byte(), let tag = Tag(rawValue: raw) else { return nil }
        switch tag {
        case .createRoom:
            guard let room = reader.string(), let epoch = reader.string(), let snapshot = reader.blob() else { return nil }
            return .createRoom(room: room, epoch: epoch, snapshot: snapshot)
        case .appendPatch, .appendTimedPatch:
            guard let room = reader.string(), let rev = reader.int64(), let user = reader.string(),
                  let client = reader.string(), let seq = reader.int64(), let ops = reader.blob() else { return nil }
            var time: Int64 = 0
            if tag == .appendTimedPatch {
                guard let stored = reader.int64() else { return nil }
                time = stored
            }
            return .appendPatch(StoredPatch(room: room, rev: rev, user: user, client: client, seq: seq, ops: ops, time: time))
        case .snapshot:
            guard let room = reader.string(), let rev = reader.int64(), let state = reader.blob(),
                  let keepFrom = reader.int64() else { return nil }
            return .snapshot(room: room, rev: rev, state: state, keepFrom: keepFrom)
        case .saveInvite:
            guard let code = reader.string(), let room = reader.string(), let role = reader.string(),
                  let createdBy = reader.string(), let createdAt = reader.int64(), let expiresAt = reader.int64(),
                  let usesLeft = reader.int64(), let revoked = reader.byte() else { return nil }
            return .saveInvite(StoredInvite(code: code, room: room, role: role, createdBy: createdBy, createdAt: createdAt,
                                            expiresAt: expiresAt, usesLeft: Int(truncatingIfNeeded: usesLeft), revoked: revoked != 0))
        case .deleteInvite:
            guard let code = reader.string() else { return nil }
            return .deleteInvite(code: code)
        case .saveDenial:
            guard let room = reader.string(), let user = reader.string(), let until = reader.int64() else { return nil }
            return .saveDenial(StoredDenial(room: room, user: user, until: until))
        case .deleteDenial:
            guard let room = reader.string(), let user = reader.string() else { return nil }
            return .deleteDenial(room: room, user: user)
        case .forgetClients:
            // Bare client ids, whose owner is not known: progress kept under them was dropped when storage
            // moved to authors (`SQLiteRoomStore`), so only the room's having forgotten carries over.
            guard let room = reader.string(), let count = reader.uint32(), Int(count) <= reader.end - reader.offset else { return nil }
            for _ in 0..<count {
                guard reader.string() != nil else { return nil }
            }
            return .forgetClients(room: room, clients: [])
        case .forgetAuthors:
            guard let room = reader.string(), let count = reader.uint32(), Int(count) <= reader.end - reader.offset else { return nil }
            var authors: [Peer] = []
            authors.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let user = reader.string(), let client = reader.string() else { return nil }
                authors.append(Peer(user: user, client: client))
            }
            return .forgetClients(room: room, clients: authors)
        case .deleteRoom:
            guard let room = reader.string() else { return nil }
            return .deleteRoom(room: room)
        case .expireHistory:
            guard let room = reader.string(), let olderThan = reader.int64(), let keepingFrom = reader.int64() else { return nil }
            return .expireHistory(room: room, olderThan: olderThan, keepingFrom: keepingFrom)
        }
    }

    // MARK: - Primitives

    /// Little-endian, whatever the machine's byte order.
    private static func put<T: FixedWidthInteger & UnsignedInteger>(_ value: T, into out: inout [UInt8]) {
        for index in 0..<(T.bitWidth / 8) { out.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private static func put(_ bytes: [UInt8], into out: inout [UInt8]) {
        put(UInt32(truncatingIfNeeded: bytes.count), into: &out)
        out.append(contentsOf: bytes)
    }

    private static func put(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { utf8 in
            put(UInt32(truncatingIfNeeded: utf8.count), into: &out)
            out.append(contentsOf: utf8)
        }
    }

    /// Reads little-endian fields from a byte array up to `end`; every read returns nil past it.
    private struct Reader {
        let bytes: [UInt8]
        var offset: Int
        var end: Int

        init(bytes: [UInt8], offset: Int) {
            self.bytes = bytes
            self.offset = offset
            end = bytes.count
        }

        mutating func byte() -> UInt8? {
            guard offset < end else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func uint32() -> UInt32? { integer() }

        mutating func uint64() -> UInt64? { integer() }

        private mutating func integer<T: FixedWidthInteger & UnsignedInteger>() -> T? {
            let size = T.bitWidth / 8
            guard end - offset >= size else { return nil }
            var value: T = 0
            for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }

        mutating func int64() -> Int64? { uint64().map { Int64(bitPattern: $0) } }

        mutating func blob() -> [UInt8]? {
            guard let count = uint32(), end - offset >= Int(count) else { return nil }
            defer { offset += Int(count) }
            return Array(bytes[offset..<(offset + Int(count))])
        }

        mutating func string() -> String? {
            guard let count = uint32(), end - offset >= Int(count) else { return nil }
            defer { offset += Int(count) }
            return String(decoding: bytes[offset..<(offset + Int(count))], as: UTF8.self)
        }
    }
}
