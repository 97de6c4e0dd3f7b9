/// The shared page state of a room: always a JSON object, with its serialized size tracked.
///
/// `apply` is atomic — either every op of a patch takes effect or none does — and works in
/// place: each op touches only the containers on its path (copy-on-write copies nothing else
/// when the document is uniquely owned), failed patches are undone from a log of the replaced
/// values, and the serialized size is updated incrementally instead of re-serializing.
public struct Document: Sendable, Hashable {
    /// The document (always `.object`).
    public private(set) var root: JSONValue
    /// The exact size in bytes of `root.serializedBytes()`, maintained incrementally.
    public private(set) var byteCount: Int

    /// An empty document, `{}`.
    public init() {
        root = .emptyObject
        byteCount = 2
    }

    /// A document holding `members`.
    public init(_ members: [String: JSONValue]) {
        root = .object(members)
        byteCount = JSONWriter.byteCount(of: root)
    }

    /// A document holding `value`, or `nil` when `value` is not an object.
    public init?(_ value: JSONValue) {
        guard case .object(let members) = value else { return nil }
        self.init(members)
    }

    /// Applies `ops` in order, all or nothing.
    ///
    /// Refuses the whole patch, leaving the document unchanged, when it has more than
    /// `limits.maxOps` ops (`too_many_ops`), when any op is invalid (`invalid_path`,
    /// `invalid_op`; see `PatchOp` for the rules) or when the result would serialize to more
    /// than `limits.maxDocument` bytes (`too_large`), or when a `set` would land a value deeper than
    /// `limits.maxDepth` (`too_deep`: its path's tokens plus the value's own depth). The depth rule is
    /// checked per op, before the op walks its path, so no write ever deepens the document past the
    /// limit while parts that were already deeper (stored before the limit shrank) stay readable and
    /// removable. Intermediate states may exceed the size limit; only the final one counts.
    public mutating func apply(_ ops: [PatchOp], limits: PatchLimits = PatchLimits()) throws(PatchError) {
        guard ops.count <= limits.maxOps else { throw .tooManyOps(count: ops.count, limit: limits.maxOps) }
        var undo: [(path: ArraySlice<String>, previous: JSONValue?)] = []
        undo.reserveCapacity(ops.count)
        var size = byteCount
        for (index, op) in ops.enumerated() {
            if limits.maxDepth != .max, case .set(let path, let value) = op {
                let room = limits.maxDepth - path.tokens.count
                if room < 0 || value.depth(exceeding: room) == nil {
                    revert(undo)
                    let depth = path.tokens.count + (room < 0 ? 0 : value.depth)
                    throw .tooDeep(op: index, depth: depth, limit: limits.maxDepth)
                }
            }
            do {
                try applyOne(op, size: &size, undo: &undo)
            } catch {
                revert(undo)
                switch error {
                case .path(let reason): throw .invalidPath(op: index, path: op.path.description, reason: reason)
                case .op(let reason): throw .invalidOp(op: index, reason: reason)
                }
            }
        }
        guard size <= limits.maxDocument else {
            revert(undo)
            throw .tooLarge(size: size, limit: limits.maxDocument)
        }
        byteCount = size
    }

    /// A copy of this document with `ops` applied (see `apply`).
    public func applying(_ ops: [PatchOp], limits: PatchLimits = PatchLimits()) throws(PatchError) -> Document {
        var copy = self
        try copy.apply(ops, limits: limits)
        return copy
    }

    /// Applies one op, recording in `undo` how to restore what it changed. Makes no change
    /// when it throws.
    private mutating func applyOne(
        _ op: PatchOp, size: inout Int, undo: inout [(path: ArraySlice<String>, previous: JSONValue?)]
    ) throws(OpFault) {
        let tokens = op.path.tokens
        switch op {
        case .set(_, let value):
            if tokens.isEmpty {
                guard case .object = value else { throw .op("the document root can only be set to an object") }
                undo.append((tokens[...], root))
                root = value
                size = JSONWriter.byteCount(of: value)
                return
            }
            var createdAt: Int?
            let previous = try root.withParent(of: tokens, from: 0, creating: true, growth: &size, createdAt: &createdAt) {
                (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
                try parent.setMember(tokens[tokens.count - 1], to: value, growth: &growth)
            }
            if let createdAt {
                undo.append((tokens[...createdAt], nil))
            } else {
                undo.append((tokens[...], previous.flatMap { $0 }))
            }
        case .remove:
            guard !tokens.isEmpty else { throw .path("the document root cannot be removed") }
            var unused: Int?
            let removed = try root.withParent(of: tokens, from: 0, creating: false, growth: &size, createdAt: &unused) {
                (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
                try parent.removeMember(tokens[tokens.count - 1], growth: &growth)
            }
            if let removed = removed.flatMap({ $0 }) {
                undo.append((tokens[...], removed))
            }
        }
    }

    /// Restores the document from the undo log, newest entry first.
    private mutating func revert(_ undo: [(path: ArraySlice<String>, previous: JSONValue?)]) {
        var ignoredGrowth = 0
        var ignoredCreated: Int?
        for (path, previous) in undo.reversed() {
            guard let last = path.last else {
                if let previous { root = previous }
                continue
            }
            let tokens = Array(path)
            _ = try? root.withParent(of: tokens, from: 0, creating: false, growth: &ignoredGrowth, createdAt: &ignoredCreated) {
                (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
                if let previous {
                    return try parent.setMember(last, to: previous, growth: &growth)
                }
                return try parent.removeMember(last, growth: &growth)
            }
        }
    }
}

/// An op failure before the op index and path are attached.
enum OpFault: Error {
    case path(String)
    case op(String)
}

extension JSONValue {
    /// A short name of this value's kind for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Calls `body` in place with the container that holds the last token of `tokens`,
    /// descending from `tokens[depth]`. Each container on the way is taken out of its enum
    /// case while it is modified so that it stays uniquely referenced (no copy). `if case`
    /// binds are used on purpose: a `switch self` keeps a second reference to the payload
    /// alive for the whole case body and would copy the container on every op.
    ///
    /// A missing object member is created as `{}` when `creating` (its bytes added to
    /// `growth`, the depth of the first one created stored in `createdAt`); otherwise the walk
    /// returns `nil`. A missing array index or a scalar on the way throws when `creating` and
    /// returns `nil` otherwise (a remove of a path that does not exist is a no-op).
    mutating func withParent<R>(
        of tokens: [String], from depth: Int, creating: Bool, growth: inout Int, createdAt: inout Int?,
        _ body: (_ parent: inout JSONValue, _ growth: inout Int) throws(OpFault) -> R
    ) throws(OpFault) -> R? {
        if depth == tokens.count - 1 {
            if creating, !isContainer { throw traversalFault(tokens, depth) }
            return try body(&self, &growth)
        }
        let token = tokens[depth]
        if case .object(var members) = self {
            self = .null
            defer { self = .object(members) }
            if members.index(forKey: token) == nil {
                guard creating else { return nil }
                if createdAt == nil { createdAt = depth }
                growth += (members.isEmpty ? 0 : 1) + JSONWriter.byteCount(ofString: token) + 1 + 2
                members[token] = .emptyObject
            }
            let slot = members.index(forKey: token)!
            return try members.values[slot].withParent(
                of: tokens, from: depth + 1, creating: creating, growth: &growth, createdAt: &createdAt, body)
        }
        if case .array(var elements) = self {
            guard let index = JSONPointer.arrayIndex(token), index < elements.count else {
                guard creating else { return nil }
                throw .path("\"\(token)\" is not an index of the array at \"\(JSONPointer(tokens: Array(tokens[..<depth])))\" (count \(elements.count))")
            }
            self = .null
            defer { self = .array(elements) }
            return try elements[index].withParent(
                of: tokens, from: depth + 1, creating: creating, growth: &growth, createdAt: &createdAt, body)
        }
        guard creating else { return nil }
        throw traversalFault(tokens, depth)
    }

    private var isContainer: Bool {
        switch self {
        case .object, .array: true
        default: false
        }
    }

    /// The error for a path that continues below this scalar, found at `tokens[..<depth]`.
    private func traversalFault(_ tokens: [String], _ depth: Int) -> OpFault {
        .path("\"\(JSONPointer(tokens: Array(tokens[..<depth])))\" is \(kindName), not an object or array")
    }

    /// Sets member `token` of this container (object member, or existing array element) and
    /// returns the value it replaced, `nil` when a member was added.
    mutating func setMember(_ token: String, to value: JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? {
        if case .object(var members) = self {
            self = .null
            defer { self = .object(members) }
            let added = JSONWriter.byteCount(of: value)
            if let old = members.updateValue(value, forKey: token) {
                growth += added - JSONWriter.byteCount(of: old)
                return old
            }
            growth += (members.count > 1 ? 1 : 0) + JSONWriter.byteCount(ofString: token) + 1 + added
            return nil
        }
        if case .array(var elements) = self {
            guard let index = JSONPointer.arrayIndex(token), index < elements.count else {
                throw .path("\"\(token)\" is not an existing index of the array (count \(elements.count)); set the whole array to add elements")
            }
            self = .null
            defer { self = .array(elements) }
            growth += JSONWriter.byteCount(of: value) - JSONWriter.byteCount(of: elements[index])
            return swap(value, into: &elements[index])
        }
        throw .path("the parent is \(kindName), not an object or array")
    }

    /// Removes member `token` of this object and returns it; `nil` when there was none.
    /// Array elements cannot be removed (see `PatchOp`).
    mutating func removeMember(_ token: String, growth: inout Int) throws(OpFault) -> JSONValue? {
        if case .object(var members) = self {
            self = .null
            defer { self = .object(members) }
            guard let old = members.removeValue(forKey: token) else { return nil }
            growth -= (members.isEmpty ? 0 : 1) + JSONWriter.byteCount(ofString: token) + 1 + JSONWriter.byteCount(of: old)
            return old
        }
        if case .array(let elements) = self, let index = JSONPointer.arrayIndex(token), index < elements.count {
            throw .path("array elements cannot be removed; set the whole array instead")
        }
        return nil
    }
}

/// Stores `value` in `slot` and returns what was there.
private func swap(_ value: JSONValue, into slot: inout JSONValue) -> JSONValue {
    var replaced = value
    Swift.swap(&replaced, &slot)
    return replaced
}
