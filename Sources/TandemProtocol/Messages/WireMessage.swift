/// What client and server messages share: encoding to compact JSON bytes and decoding from
/// one frame's bytes or from an already parsed value.
public protocol WireMessage: Sendable, Hashable {
    /// The wire `type` of this message.
    var type: String { get }

    /// Appends the message's JSON text to `out`, `type` first.
    func encode(into out: inout [UInt8])

    /// Decodes a message from a parsed JSON value; unknown fields are ignored.
    static func decode(_ value: JSONValue) throws(MessageDecodingError) -> Self
}

extension WireMessage {
    /// The message's JSON text as UTF-8 bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        encode(into: &out)
        return out
    }

    /// Decodes a message from the UTF-8 JSON text of one frame (`.malformedJSON` when the
    /// bytes are not strict JSON).
    public static func decode(_ bytes: some Collection<UInt8>) throws(MessageDecodingError) -> Self {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw .malformedJSON(error)
        }
        return try decode(value)
    }
}
