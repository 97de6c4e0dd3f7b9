import TandemProtocol

/// The server broke the protocol in a way this client cannot work around. The session closes that
/// connection (1007) and reconnects with the normal backoff, so a message it cannot read never leaves
/// it waiting: a `welcome` that cannot be read is retried, never waited for.
public enum SyncProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A message of `type` (`nil` when not even that could be read) of `bytes` bytes could not be
    /// decoded: nested too deep, invalid JSON, or a field this client needs is missing or malformed.
    case unreadableMessage(type: String?, bytes: Int, reason: MessageDecodingError)

    /// What happened and what to do about it.
    public var description: String {
        switch self {
        case .unreadableMessage(let type, let bytes, let reason):
            let what = type.map { "a \"\($0)\" message" } ?? "a message"
            return "the server sent \(what) of \(bytes) bytes that this client cannot read (\(reason)); the connection was closed "
                + "and will be retried. If it happens again, the server or the room's state is out of this client's reach: "
                + "update the app, or ask the operator to check the room"
        }
    }

    /// The `type` a server message names first (`{"type":"welcome",…`), read without parsing the rest, so
    /// the error can name the message even when its JSON is unreadable.
    static func leadingType(of bytes: [UInt8]) -> String? {
        let prefix = Array(#"{"type":""#.utf8)
        guard bytes.count > prefix.count, bytes.starts(with: prefix) else { return nil }
        let rest = bytes[prefix.count...].prefix(64)
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let name = rest[..<end]
        guard !name.isEmpty, name.allSatisfy({ $0 == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) else { return nil }
        return String(decoding: name, as: UTF8.self)
    }
}
