/// One change to the shared document, addressed by a JSON Pointer.
///
/// Semantics (applied by `Document.apply`):
/// - `set` puts `value` at `path`, creating missing parent objects. Inside an array the index
///   must already exist (the element is replaced); appending (`-` or an index equal to the
///   count) is not supported — set the whole array instead. `set` on the root (`""`) replaces
///   the document and requires an object.
/// - `remove` deletes the member at `path`; a path that does not exist is a no-op (ops are
///   idempotent). Removing an array element is refused (`invalid_path`) because shifting the
///   remaining elements would make a repeated or concurrent remove delete a different element;
///   set the array instead. Removing the root is refused.
public enum PatchOp: Sendable, Hashable {
    /// Put `value` at the path.
    case set(JSONPointer, JSONValue)
    /// Delete what is at the path, if anything.
    case remove(JSONPointer)

    /// The path the op addresses.
    public var path: JSONPointer {
        switch self {
        case .set(let path, _), .remove(let path): path
        }
    }

    /// The wire form: `{"op":"set","path":…,"value":…}` or `{"op":"remove","path":…}`.
    public var jsonValue: JSONValue {
        switch self {
        case .set(let path, let value): ["op": "set", "path": .string(path.description), "value": value]
        case .remove(let path): ["op": "remove", "path": .string(path.description)]
        }
    }

    /// Appends the wire form, members in the order `op`, `path`, `value`.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .set(let path, let value):
            JSONWriter.raw(#"{"op":"set","path":"#, into: &out)
            JSONWriter.write(string: path.description, into: &out)
            JSONWriter.raw(#","value":"#, into: &out)
            JSONWriter.write(value, into: &out)
        case .remove(let path):
            JSONWriter.raw(#"{"op":"remove","path":"#, into: &out)
            JSONWriter.write(string: path.description, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Reads an op from its wire form; `index` is the op's position, used in errors.
    /// Unknown members are ignored.
    public init(json: JSONValue, index: Int = 0) throws(PatchError) {
        guard case .object(let members) = json else { throw .invalidOp(op: index, reason: "an op must be an object") }
        guard case .string(let kind)? = members["op"] else {
            throw .invalidOp(op: index, reason: "\"op\" must be the string \"set\" or \"remove\"")
        }
        guard case .string(let pathText)? = members["path"] else {
            throw .invalidPath(op: index, path: "", reason: "\"path\" must be a string")
        }
        let path: JSONPointer
        do {
            path = try JSONPointer(parsing: pathText)
        } catch {
            throw .invalidPath(op: index, path: pathText, reason: error.description)
        }
        switch kind {
        case "set":
            guard let value = members["value"] else { throw .invalidOp(op: index, reason: "\"set\" needs a \"value\"") }
            self = .set(path, value)
        case "remove":
            self = .remove(path)
        default:
            throw .invalidOp(op: index, reason: "unknown op \"\(kind)\" (expected \"set\" or \"remove\")")
        }
    }

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
