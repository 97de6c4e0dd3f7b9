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
    /// `limits.maxOps` ops (`too_many_ops`), when any op is invalid or does not apply (`invalid_path`,
    /// `invalid_op`, `path_not_found`, `index_out_of_range`, `test_failed`; see `PatchOp` for the
    /// rules), when the result would serialize to more than `limits.maxDocument` bytes (`too_large`),
    /// or when an op would land a value deeper than `limits.maxDepth` (`too_deep`: its path's tokens
    /// plus the value's own depth). The depth rule is checked per op, before the op writes, so no write
    /// ever deepens the document past the limit while parts that were already deeper (stored before
    /// the limit shrank) stay readable and removable. Intermediate states may exceed the size limit;
    /// only the final one counts.
    public mutating func apply(_ ops: [PatchOp], limits: PatchLimits = PatchLimits()) throws(PatchError) {
        var recorder: [ArrayEdit]?
        try apply(ops, limits: limits, recorder: &recorder)
    }

    /// Applies `ops` as `apply(_:limits:)` does and appends to `edits` the array inserts and removals
    /// they made, in order (nothing when the patch is refused): what a patch made concurrently with
    /// this one is rebased over (`PatchRebase`).
    public mutating func apply(_ ops: [PatchOp], limits: PatchLimits = PatchLimits(), edits: inout [ArrayEdit]) throws(PatchError) {
        var recorder: [ArrayEdit]? = []
        try apply(ops, limits: limits, recorder: &recorder)
        edits.append(contentsOf: recorder ?? [])
    }

    private mutating func apply(_ ops: [PatchOp], limits: PatchLimits, recorder: inout [ArrayEdit]?) throws(PatchError) {
        try limits.admitOpCount(ops.count)
        var undo: [Undo] = []
        undo.reserveCapacity(ops.count)
        var size = byteCount
        for (index, op) in ops.enumerated() {
            do {
                try applyOne(op, maxDepth: limits.maxDepth, size: &size, undo: &undo, edits: &recorder)
            } catch {
                if recorder != nil { recorder = [] }
                revert(undo)
                let path = op.path.description
                switch error {
                case .path(let reason): throw .invalidPath(op: index, path: path, reason: reason)
                case .op(let reason): throw .invalidOp(op: index, reason: reason)
                case .notFound(let reason): throw .pathNotFound(op: index, path: path, reason: reason)
                case .outOfRange(let reason): throw .indexOutOfRange(op: index, path: path, reason: reason)
                case .testFailed: throw .testFailed(op: index, path: path)
                case .tooDeep(let depth): throw .tooDeep(op: index, depth: depth, limit: limits.maxDepth)
                }
            }
        }
        guard size <= limits.maxDocument else {
            revert(undo)
            if recorder != nil { recorder = [] }
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

    /// How to take back one change an op made.
    private enum Undo {
        /// Put `previous` back at the path (nil: take out what is there).
        case restore(ArraySlice<String>, JSONValue?)
        /// Take out the array element inserted at the path.
        case uninsert([String])
        /// Put back the array element removed from the path.
        case reinsert([String], JSONValue)
    }

    /// What an op did to the container holding its last token.
    private enum ParentChange {
        case replaced(JSONValue?)
        case inserted(Int)
        case removedMember(JSONValue)
        case removedElement(Int, JSONValue)
        case nothing
    }

    /// Applies one op, recording in `undo` how to take back each change it made, also the changes
    /// before a failure partway (a `move` whose `add` fails after its `remove`): `apply` takes them
    /// all back.
    private mutating func applyOne(_ op: PatchOp, maxDepth: Int, size: inout Int, undo: inout [Undo],
                                   edits: inout [ArrayEdit]?) throws(OpFault) {
        switch op {
        case .set(let path, let value):
            try Self.checkDepth(of: value, at: path, limit: maxDepth)
            try set(path.tokens, to: value, size: &size, undo: &undo)
        case .remove(let path):
            try remove(path.tokens, required: false, size: &size, undo: &undo, edits: &edits)
        case .add(let path, let value):
            try Self.checkDepth(of: value, at: path, limit: maxDepth)
            try add(path.tokens, value, size: &size, undo: &undo, edits: &edits)
        case .replace(let path, let value):
            try Self.checkDepth(of: value, at: path, limit: maxDepth)
            try replace(path.tokens, with: value, size: &size, undo: &undo)
        case .test(let path, let value):
            guard let current = root[path] else { throw .notFound("nothing is at the path") }
            guard current == value else { throw .testFailed }
        case .copy(let from, let path):
            guard let value = root[from] else { throw .notFound("nothing is at \"from\" (\(from))") }
            try Self.checkDepth(of: value, at: path, limit: maxDepth)
            try add(path.tokens, value, size: &size, undo: &undo, edits: &edits)
        case .move(let from, let path):
            guard let value = root[from] else { throw .notFound("nothing is at \"from\" (\(from))") }
            if from == path { return }
            guard !path.tokens.starts(with: from.tokens) else {
                throw .op("\"\(from)\" cannot be moved into one of its own children")
            }
            try Self.checkDepth(of: value, at: path, limit: maxDepth)
            try remove(from.tokens, required: true, size: &size, undo: &undo, edits: &edits)
            try add(path.tokens, value, size: &size, undo: &undo, edits: &edits)
        }
    }

    private static func checkDepth(of value: JSONValue, at path: JSONPointer, limit: Int) throws(OpFault) {
        guard limit != .max else { return }
        let room = limit - path.tokens.count
        if room < 0 || value.depth(exceeding: room) == nil {
            throw .tooDeep(path.tokens.count + (room < 0 ? 0 : value.depth))
        }
    }

    /// Replaces the document (`add`, `replace` or `set` of the root); only an object is a document.
    private mutating func replaceRoot(with value: JSONValue, size: inout Int, undo: inout [Undo]) throws(OpFault) {
        guard case .object = value else { throw .op("the document root can only be set to an object") }
        undo.append(.restore([], root))
        root = value
        size = JSONWriter.byteCount(of: value)
    }

    private mutating func set(_ tokens: [String], to value: JSONValue, size: inout Int, undo: inout [Undo]) throws(OpFault) {
        if tokens.isEmpty { return try replaceRoot(with: value, size: &size, undo: &undo) }
        var createdAt: Int?
        let previous = try root.withParent(of: tokens, from: 0, creating: true, growth: &size, createdAt: &createdAt) {
            (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
            try parent.setMember(tokens[tokens.count - 1], to: value, growth: &growth)
        }
        if let createdAt {
            undo.append(.restore(tokens[...createdAt], nil))
        } else {
            undo.append(.restore(tokens[...], previous.flatMap { $0 }))
        }
    }

    /// Removes what is at `tokens`; when it is missing, throws if `required`, else does nothing.
    private mutating func remove(_ tokens: [String], required: Bool, size: inout Int, undo: inout [Undo],
                                 edits: inout [ArrayEdit]?) throws(OpFault) {
        guard let last = tokens.last else { throw .path("the document root cannot be removed") }
        var unused: Int?
        let change = try root.withParent(of: tokens, from: 0, creating: false, growth: &size, createdAt: &unused) {
            (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> ParentChange in
            if case .array(let elements) = parent {
                guard let index = JSONPointer.arrayIndex(last), index < elements.count else { return .nothing }
                return .removedElement(index, parent.removeElement(at: index, growth: &growth))
            }
            return parent.removeMember(last, growth: &growth).map(ParentChange.removedMember) ?? .nothing
        } ?? .nothing
        switch change {
        case .removedElement(let index, let value):
            undo.append(.reinsert(Array(tokens.dropLast()) + [String(index)], value))
            if edits != nil { edits?.append(ArrayEdit(.remove, array: root.steps(along: tokens.dropLast()), index: index)) }
        case .removedMember(let value):
            undo.append(.restore(tokens[...], value))
        default:
            if required { throw .notFound("nothing is at \"\(JSONPointer(tokens: tokens))\"") }
        }
    }

    private mutating func add(_ tokens: [String], _ value: JSONValue, size: inout Int, undo: inout [Undo],
                              edits: inout [ArrayEdit]?) throws(OpFault) {
        guard let last = tokens.last else { return try replaceRoot(with: value, size: &size, undo: &undo) }
        var unused: Int?
        let change = try root.withParent(of: tokens, from: 0, creating: false, growth: &size, createdAt: &unused) {
            (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> ParentChange in
            if case .array = parent { return .inserted(try parent.insertElement(last, value, growth: &growth)) }
            guard case .object = parent else { throw .path("the parent is \(parent.kindName), not an object or array") }
            return .replaced(try parent.setMember(last, to: value, growth: &growth))
        }
        switch change {
        case .inserted(let index)?:
            undo.append(.uninsert(Array(tokens.dropLast()) + [String(index)]))
            if edits != nil { edits?.append(ArrayEdit(.insert, array: root.steps(along: tokens.dropLast()), index: index)) }
        case .replaced(let previous)?: undo.append(.restore(tokens[...], previous))
        default: throw .notFound("the parent \"\(JSONPointer(tokens: Array(tokens.dropLast())))\" does not exist")
        }
    }

    private mutating func replace(_ tokens: [String], with value: JSONValue, size: inout Int, undo: inout [Undo]) throws(OpFault) {
        guard let last = tokens.last else { return try replaceRoot(with: value, size: &size, undo: &undo) }
        var unused: Int?
        let previous = try root.withParent(of: tokens, from: 0, creating: false, growth: &size, createdAt: &unused) {
            (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
            switch parent {
            case .array(let elements):
                guard let index = JSONPointer.arrayIndex(last) else { throw .path("\"\(last)\" is not an array index") }
                guard index < elements.count else { throw .outOfRange("index \(index) is past the end of the array (count \(elements.count))") }
            case .object(let members):
                guard members[last] != nil else { return nil }
            default:
                throw .path("the parent is \(parent.kindName), not an object or array")
            }
            return try parent.setMember(last, to: value, growth: &growth)
        }
        guard let previous = previous.flatMap({ $0 }) else { throw .notFound("nothing is at the path to replace") }
        undo.append(.restore(tokens[...], previous))
    }

    /// Takes back `undo`, newest entry first.
    private mutating func revert(_ undo: [Undo]) {
        var ignoredGrowth = 0
        var ignoredCreated: Int?
        for entry in undo.reversed() {
            switch entry {
            case .restore(let path, let previous):
                guard let last = path.last else {
                    if let previous { root = previous }
                    continue
                }
                _ = try? root.withParent(of: Array(path), from: 0, creating: false, growth: &ignoredGrowth, createdAt: &ignoredCreated) {
                    (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> JSONValue? in
                    if let previous {
                        return try parent.setMember(last, to: previous, growth: &growth)
                    }
                    return parent.removeMember(last, growth: &growth)
                }
            case .uninsert(let path):
                _ = try? root.withParent(of: path, from: 0, creating: false, growth: &ignoredGrowth, createdAt: &ignoredCreated) {
                    (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> Void in
                    if let index = path.last.flatMap(JSONPointer.arrayIndex) { _ = parent.removeElement(at: index, growth: &growth) }
                }
            case .reinsert(let path, let value):
                _ = try? root.withParent(of: path, from: 0, creating: false, growth: &ignoredGrowth, createdAt: &ignoredCreated) {
                    (parent: inout JSONValue, growth: inout Int) throws(OpFault) -> Void in
                    if let last = path.last { _ = try parent.insertElement(last, value, growth: &growth) }
                }
            }
        }
    }
}

extension JSONValue {
    /// The typed steps of the existing location `tokens` (each token is an element where its
    /// container is an array, a member otherwise).
    func steps(along tokens: ArraySlice<String>) -> [PathStep] {
        var steps: [PathStep] = []
        steps.reserveCapacity(tokens.count)
        var node = self
        for token in tokens {
            if case .array(let elements) = node, let index = JSONPointer.arrayIndex(token), index < elements.count {
                steps.append(.element(index))
                node = elements[index]
            } else {
                steps.append(.member(token))
                if case .object(let members) = node { node = members[token] ?? .null } else { node = .null }
            }
        }
        return steps
    }
}

/// An op failure before the op index and path are attached.
enum OpFault: Error {
    case path(String)
    case op(String)
    case notFound(String)
    case outOfRange(String)
    case testFailed
    case tooDeep(Int)
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
                throw .path("\"\(token)\" is not an existing index of the array (count \(elements.count)); use \"add\" to insert")
            }
            self = .null
            defer { self = .array(elements) }
            growth += JSONWriter.byteCount(of: value) - JSONWriter.byteCount(of: elements[index])
            return swap(value, into: &elements[index])
        }
        throw .path("the parent is \(kindName), not an object or array")
    }

    /// Removes member `token` of this object and returns it; `nil` when there was none or this is
    /// not an object.
    mutating func removeMember(_ token: String, growth: inout Int) -> JSONValue? {
        guard case .object(var members) = self else { return nil }
        self = .null
        defer { self = .object(members) }
        guard let old = members.removeValue(forKey: token) else { return nil }
        growth -= (members.isEmpty ? 0 : 1) + JSONWriter.byteCount(ofString: token) + 1 + JSONWriter.byteCount(of: old)
        return old
    }

    /// Inserts `value` into this array at index `token` (`0…count`, or `-` for the end) and returns
    /// the index it took; later elements shift.
    mutating func insertElement(_ token: String, _ value: JSONValue, growth: inout Int) throws(OpFault) -> Int {
        guard case .array(var elements) = self else { throw .path("the parent is \(kindName), not an array") }
        let index: Int
        if token == "-" {
            index = elements.count
        } else {
            guard let parsed = JSONPointer.arrayIndex(token) else { throw .path("\"\(token)\" is not an array index or \"-\"") }
            guard parsed <= elements.count else {
                throw .outOfRange("index \(parsed) is past the end of the array (count \(elements.count); \"-\" appends)")
            }
            index = parsed
        }
        self = .null
        defer { self = .array(elements) }
        growth += JSONWriter.byteCount(of: value) + (elements.isEmpty ? 0 : 1)
        elements.insert(value, at: index)
        return index
    }

    /// Removes element `index` (which must exist) of this array and returns it; later elements shift.
    mutating func removeElement(at index: Int, growth: inout Int) -> JSONValue {
        guard case .array(var elements) = self else { return .null }
        self = .null
        defer { self = .array(elements) }
        let removed = elements.remove(at: index)
        growth -= JSONWriter.byteCount(of: removed) + (elements.isEmpty ? 0 : 1)
        return removed
    }
}

/// Stores `value` in `slot` and returns what was there.
private func swap(_ value: JSONValue, into slot: inout JSONValue) -> JSONValue {
    var replaced = value
    Swift.swap(&replaced, &slot)
    return replaced
}
