/// Why the server refused a patch, as carried by a `reject` message's `code`.
///
/// Codes this version does not know decode as `.other` so an older client still rolls the
/// patch back and shows the message.
public enum RejectCode: Sendable, Hashable, CustomStringConvertible {
    /// The sender's role may not patch (a `viewer`), or the sender was removed from the room.
    case forbidden
    /// A path is not a valid JSON Pointer, or does not fit the document (traverses a scalar, is not
    /// an index of the array it addresses, removes the root).
    case invalidPath
    /// An op is malformed: unknown `op`, missing `value`, or a root `set` to a non-object.
    case invalidOp
    /// The patch has more ops than `limits.maxOps`.
    case tooManyOps
    /// The document would exceed `limits.maxDocument` bytes after the patch.
    case tooLarge
    /// The document would nest deeper than `limits.maxDepth` after the patch.
    case tooDeep
    /// An op needs a value, or a parent, where there is none (`replace`, `move`, `copy`, `test`, and
    /// `add` under a missing parent).
    case pathNotFound
    /// An op addresses an array index past the end of the array.
    case indexOutOfRange
    /// A `test` op found a different value: the patch's condition does not hold.
    case testFailed
    /// The patch's `base` is older than the revisions the room keeps for rebasing; make the change
    /// again on the current state.
    case baseTooOld
    /// Reported by the client itself, never sent by a server: the room forgot this client's progress
    /// (`welcome.forgotten` with a snapshot), so whether this patch, sent over an earlier connection, was
    /// applied cannot be known; it is dropped rather than risk applying it twice.
    case progressExpired
    /// A code from a newer protocol revision.
    case other(String)

    /// The wire string of this code.
    public var wireValue: String {
        switch self {
        case .forbidden: "forbidden"
        case .invalidPath: "invalid_path"
        case .invalidOp: "invalid_op"
        case .tooManyOps: "too_many_ops"
        case .tooLarge: "too_large"
        case .tooDeep: "too_deep"
        case .pathNotFound: "path_not_found"
        case .indexOutOfRange: "index_out_of_range"
        case .testFailed: "test_failed"
        case .baseTooOld: "base_too_old"
        case .progressExpired: "progress_expired"
        case .other(let code): code
        }
    }

    /// Maps a wire string to its code (`.other` for unknown strings).
    public init(wireValue: String) {
        switch wireValue {
        case "forbidden": self = .forbidden
        case "invalid_path": self = .invalidPath
        case "invalid_op": self = .invalidOp
        case "too_many_ops": self = .tooManyOps
        case "too_large": self = .tooLarge
        case "too_deep": self = .tooDeep
        case "path_not_found": self = .pathNotFound
        case "index_out_of_range": self = .indexOutOfRange
        case "test_failed": self = .testFailed
        case "base_too_old": self = .baseTooOld
        case "progress_expired": self = .progressExpired
        default: self = .other(wireValue)
        }
    }

    /// The wire string.
    public var description: String { wireValue }
}
