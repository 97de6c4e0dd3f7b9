extension PatchOp {
    /// The ops that turn `old` into `new` under Tandem's patch rules, touching only what
    /// changed: members are set or removed one by one, objects are compared member by member,
    /// arrays of equal length element by element; elements appended to an array are each an
    /// `add` at `-` (the end), so appends from several participants at once all land; any other
    /// change of an array's length sets it whole (an index of an insert or removal could name
    /// another element once someone else changed the array). Ops are ordered by path (keys in
    /// UTF-8 order), so the same change always yields the same patch.
    ///
    /// `old` and `new` are normally documents (objects); for anything else the result replaces
    /// the value at `base`. Applying the result to `old` yields `new`, though it may exceed
    /// `PatchLimits.maxOps` for large changes — split it or send the whole subtree.
    public static func diff(from old: JSONValue, to new: JSONValue, at base: JSONPointer = .root) -> [PatchOp] {
        var ops: [PatchOp] = []
        var path = base.tokens
        appendDiff(from: old, to: new, path: &path, into: &ops)
        return ops
    }

    private static func appendDiff(from old: JSONValue, to new: JSONValue, path: inout [String], into ops: inout [PatchOp]) {
        switch (old, new) {
        case (.object(let before), .object(let after)):
            for (key, value) in JSONWriter.sortedMembers(after) {
                path.append(key)
                if let previous = before[key] {
                    appendDiff(from: previous, to: value, path: &path, into: &ops)
                } else {
                    ops.append(.set(JSONPointer(tokens: path), value))
                }
                path.removeLast()
            }
            for (key, _) in JSONWriter.sortedMembers(before) where after[key] == nil {
                ops.append(.remove(JSONPointer(tokens: path + [key])))
            }
        case (.array(let before), .array(let after)) where before.count == after.count && !path.isEmpty:
            for index in after.indices {
                path.append(String(index))
                appendDiff(from: before[index], to: after[index], path: &path, into: &ops)
                path.removeLast()
            }
        case (.array(let before), .array(let after)) where after.count > before.count && after.starts(with: before) && !path.isEmpty:
            let end = JSONPointer(tokens: path + ["-"])
            for element in after[before.count...] { ops.append(.add(end, element)) }
        default:
            if old != new { ops.append(.set(JSONPointer(tokens: path), new)) }
        }
    }
}
