/// Why bytes could not be decoded as a protocol message. Field names are paths such as
/// `resume.rev` or `participants[2].role`.
public enum MessageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not valid JSON.
    case malformedJSON(JSONParseError)
    /// The JSON is valid but not an object.
    case notAnObject
    /// The `type` is not one this protocol version knows (answered with an `error`, not a
    /// disconnect).
    case unknownType(String)
    /// A required field is absent (or `null`).
    case missingField(String)
    /// A field has the wrong type or an invalid value; `expected` says what was required.
    case invalidField(String, expected: String)
    /// A client `patch` with a readable `seq` whose `ops` are invalid: the server answers with
    /// a `reject` for that seq carrying `error.code`.
    case invalidPatch(seq: Int64, PatchError)

    /// The `error` code a server answers with (`invalidPatch` is answered by a `reject`
    /// instead; its code here is `badMessage`).
    public var errorCode: ErrorCode {
        switch self {
        case .malformedJSON, .notAnObject: .badJSON
        case .unknownType: .unknownType
        case .missingField, .invalidField, .invalidPatch: .badMessage
        }
    }

    /// A message a developer can act on.
    public var description: String {
        switch self {
        case .malformedJSON(let error): error.description
        case .notAnObject: "a message must be a JSON object"
        case .unknownType(let type): "unknown message type \"\(type)\""
        case .missingField(let field): "missing field \"\(field)\""
        case .invalidField(let field, let expected): "field \"\(field)\" must be \(expected)"
        case .invalidPatch(let seq, let error): "patch \(seq): \(error.description)"
        }
    }
}
