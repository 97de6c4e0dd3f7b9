extension PatchOp {
    /// The ops that turn `old` into `new` under Tandem's patch rules, touching only what
    /// changed: members are set or removed one by one, objects are compared member by member,
    /// arrays of equal length element by element. When an array's length changes, the elements
    /// its start and its end share are kept and what lies between is compared element by element
    /// as far as both go, then the rest is removed (`remove` at its index) or inserted (`add` at
    /// its index, or at `-` when nothing follows, so appends from several participants at once
    /// all land). Indexes name the elements the author saw: a patch sent with its `base` is
    /// rebased over what others inserted or removed meanwhile (`PatchRebase`). Ops are ordered by
    /// path (keys in UTF-8 order), so the same change always yields the same patch.
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
        case (.array(let before), .array(let after)) where !path.isEmpty:
            var start = 0
            while start < before.count, start < after.count, before[start] == after[start] { start += 1 }
            var end = 0
            while end < before.count - start, end < after.count - start, before[before.count - 1 - end] == after[after.count - 1 - end] { end += 1 }
            let removed = before.count - start - end, inserted = after.count - start - end
            let paired = min(removed, inserted)
            for offset in 0..<paired {
                path.append(String(start + offset))
                appendDiff(from: before[start + offset], to: after[start + offset], path: &path, into: &ops)
                path.removeLast()
            }
            let at = start + paired
            for _ in paired..<removed { ops.append(.remove(JSONPointer(tokens: path + [String(at)]))) }
            for offset in paired..<inserted {
                ops.append(.add(JSONPointer(tokens: path + [end == 0 ? "-" : String(start + offset)]), after[start + offset]))
            }
        default:
            if old != new { ops.append(.set(JSONPointer(tokens: path), new)) }
        }
    }
}
