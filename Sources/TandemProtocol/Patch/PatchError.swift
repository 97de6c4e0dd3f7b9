/// Why a patch was refused as a whole. Each case maps to the `reject` code the server sends
/// (`code`); `description` is the human-readable `message`.
public enum PatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Op number `op` (zero-based) has a path that is malformed or does not fit the document.
    case invalidPath(op: Int, path: String, reason: String)
    /// Op number `op` (zero-based) is malformed.
    case invalidOp(op: Int, reason: String)
    /// The patch has `count` ops; at most `limit` are allowed.
    case tooManyOps(count: Int, limit: Int)
    /// The document would be `size` bytes; at most `limit` are allowed.
    case tooLarge(size: Int, limit: Int)
    /// Op number `op` (zero-based) would nest the document `depth` levels deep (or more); at most
    /// `limit` are allowed.
    case tooDeep(op: Int, depth: Int, limit: Int)
    /// The sender may not change the document (role check done by the server).
    case forbidden(reason: String)
    /// Op number `op` (zero-based) needs a value (or a parent) at a location that holds none.
    case pathNotFound(op: Int, path: String, reason: String)
    /// Op number `op` (zero-based) addresses an array index past the end of the array.
    case indexOutOfRange(op: Int, path: String, reason: String)
    /// Op number `op` (zero-based), a `test`, found a different value at `path`.
    case testFailed(op: Int, path: String)
    /// The patch was made on rev `base`, but the room keeps what changed only after rev `oldest`, so
    /// it cannot be rebased onto the current state.
    case baseTooOld(base: Int64, oldest: Int64)

    /// The `reject` code for this error.
    public var code: RejectCode {
        switch self {
        case .invalidPath: .invalidPath
        case .invalidOp: .invalidOp
        case .tooManyOps: .tooManyOps
        case .tooLarge: .tooLarge
        case .tooDeep: .tooDeep
        case .forbidden: .forbidden
        case .pathNotFound: .pathNotFound
        case .indexOutOfRange: .indexOutOfRange
        case .testFailed: .testFailed
        case .baseTooOld: .baseTooOld
        }
    }

    /// The zero-based index of the op at fault, for errors about one op.
    public var opIndex: Int? {
        switch self {
        case .invalidPath(let op, _, _), .invalidOp(let op, _), .tooDeep(let op, _, _), .pathNotFound(let op, _, _),
             .indexOutOfRange(let op, _, _), .testFailed(let op, _): op
        case .tooManyOps, .tooLarge, .forbidden, .baseTooOld: nil
        }
    }

    /// A message a developer can act on, naming the op and path at fault.
    public var description: String {
        switch self {
        case .invalidPath(let op, let path, let reason): "op \(op): invalid path \"\(path)\": \(reason)"
        case .invalidOp(let op, let reason): "op \(op): \(reason)"
        case .tooManyOps(let count, let limit): "patch has \(count) ops; at most \(limit) are allowed"
        case .tooLarge(let size, let limit): "document would be \(size) bytes; at most \(limit) are allowed"
        case .tooDeep(let op, let depth, let limit):
            "op \(op): the document would nest \(depth) levels deep; at most \(limit) are allowed (flatten the value or set it at a shallower path)"
        case .forbidden(let reason): "forbidden: \(reason)"
        case .pathNotFound(let op, let path, let reason): "op \(op): path \"\(path)\" not found: \(reason)"
        case .indexOutOfRange(let op, let path, let reason): "op \(op): \"\(path)\": \(reason)"
        case .testFailed(let op, let path): "op \(op): test failed: the value at \"\(path)\" differs"
        case .baseTooOld(let base, let oldest):
            "the patch was made on rev \(base), but the room keeps the changes after rev \(oldest) only; make the change again on the current state"
        }
    }
}
