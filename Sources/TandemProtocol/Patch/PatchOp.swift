/// One change to the shared document, addressed by RFC 6901 JSON Pointers.
///
/// Semantics (applied by `Document.apply`; a patch is atomic, so an op that fails refuses it whole):
/// - `set` (Tandem's own) puts `value` at `path`, creating missing parent objects. Inside an array
///   the index must already exist (the element is replaced). `set` on the root (`""`) replaces the
///   document and requires an object.
/// - `remove` deletes what is at `path`. An array element is taken out and later elements shift
///   (RFC 6902). A missing object member or index is a no-op, so a repeated remove is harmless
///   (where RFC 6902 would fail the patch; precede it with `test` to require the value). Removing
///   the root is refused.
/// - `add`, `replace`, `move`, `copy`, `test` are RFC 6902's (§4.1–4.6): `add` needs the parent to
///   exist, inserts into an array at an index up to its count or at `-` (the end), and sets an
///   object member; `replace` needs the target to exist; `move` and `copy` take the value at `from`
///   (which must exist; a location cannot move into its own child) and `add` it at `path`; `test`
///   compares the value at `path` with `value` by JSON equality (numbers by value, object members in
///   any order) and fails the patch when they differ (`test_failed`).
public enum PatchOp: Sendable, Hashable {
    /// Put `value` at the path, creating missing parent objects.
    case set(JSONPointer, JSONValue)
    /// Delete what is at the path, if anything.
    case remove(JSONPointer)
    /// RFC 6902 `add`: insert into an array, or set an object member, under an existing parent.
    case add(JSONPointer, JSONValue)
    /// RFC 6902 `replace`: put `value` where a value already is.
    case replace(JSONPointer, JSONValue)
    /// RFC 6902 `move`: remove the value at `from` and add it at the path.
    case move(from: JSONPointer, to: JSONPointer)
    /// RFC 6902 `copy`: add a copy of the value at `from` at the path.
    case copy(from: JSONPointer, to: JSONPointer)
    /// RFC 6902 `test`: the patch applies only if the value at the path equals `value`.
    case test(JSONPointer, JSONValue)

    /// The op's name on the wire.
    public var name: String {
        switch self {
        case .set: "set"
        case .remove: "remove"
        case .add: "add"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The path the op writes (or, for `test`, reads).
    public var path: JSONPointer {
        switch self {
        case .set(let path, _), .remove(let path), .add(let path, _), .replace(let path, _), .test(let path, _): path
        case .move(_, let path), .copy(_, let path): path
        }
    }

    /// The location `move` and `copy` read; nil for the other ops.
    public var from: JSONPointer? {
        switch self {
        case .move(let from, _), .copy(let from, _): from
        default: nil
        }
    }

    /// The value the op carries; nil for `remove`, `move`, `copy`.
    public var value: JSONValue? {
        switch self {
        case .set(_, let value), .add(_, let value), .replace(_, let value), .test(_, let value): value
        case .remove, .move, .copy: nil
        }
    }

    /// The wire form: `{"op":…,"from":…,"path":…,"value":…}` with the members the op has.
    public var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["op": .string(name), "path": .string(path.description)]
        if let from { members["from"] = .string(from.description) }
        if let value { members["value"] = value }
        return .object(members)
    }

    /// Appends the wire form, members in the order `op`, `from`, `path`, `value`.
    public func write(into out: inout [UInt8]) {
        JSONWriter.raw(#"{"op":""#, into: &out)
        out.append(contentsOf: name.utf8)
        if let from {
            JSONWriter.raw(#"","from":"#, into: &out)
            JSONWriter.write(string: from.description, into: &out)
            JSONWriter.raw(#","path":"#, into: &out)
        } else {
            JSONWriter.raw(#"","path":"#, into: &out)
        }
        JSONWriter.write(string: path.description, into: &out)
        if let value {
            JSONWriter.raw(#","value":"#, into: &out)
            JSONWriter.write(value, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads an op from its wire form; `index` is the op's position, used in errors.
    /// Unknown members are ignored.
    public init(json: JSONValue, index: Int = 0) throws(PatchError) {
        guard case .object(let members) = json else { throw .invalidOp(op: index, reason: "an op must be an object") }
        guard case .string(let kind)? = members["op"] else {
            throw .invalidOp(op: index, reason: "\"op\" must be a string: \(Self.names)")
        }
        func pointer(_ member: String) throws(PatchError) -> JSONPointer {
            if member == "from", members[member] == nil { throw .invalidOp(op: index, reason: "\"\(kind)\" needs a \"from\"") }
            guard case .string(let text)? = members[member] else {
                throw .invalidPath(op: index, path: "", reason: "\"\(member)\" must be a string")
            }
            do {
                return try JSONPointer(parsing: text)
            } catch {
                throw .invalidPath(op: index, path: text, reason: error.description)
            }
        }
        func value() throws(PatchError) -> JSONValue {
            guard let value = members["value"] else { throw .invalidOp(op: index, reason: "\"\(kind)\" needs a \"value\"") }
            return value
        }
        switch kind {
        case "set": self = .set(try pointer("path"), try value())
        case "remove": self = .remove(try pointer("path"))
        case "add": self = .add(try pointer("path"), try value())
        case "replace": self = .replace(try pointer("path"), try value())
        case "move": self = .move(from: try pointer("from"), to: try pointer("path"))
        case "copy": self = .copy(from: try pointer("from"), to: try pointer("path"))
        case "test": self = .test(try pointer("path"), try value())
        default: throw .invalidOp(op: index, reason: "unknown op \"\(kind)\" (expected \(Self.names))")
        }
    }

    private static let names = #""set", "remove", "add", "replace", "move", "copy" or "test""#

    /// Reads a list of ops from a JSON array (the `ops` of a patch).
    public static func list(from json: JSONValue) throws(PatchError) -> [PatchOp] {
        guard case .array(let elements) = json else { throw .invalidOp(op: 0, reason: "\"ops\" must be an array") }
        var ops: [PatchOp] = []
        ops.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            ops.append(try PatchOp(json: element, index: index))
        }
        return ops
    }

    /// Appends a JSON array of ops in wire form.
    public static func write(_ ops: [PatchOp], into out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, op) in ops.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            op.write(into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
