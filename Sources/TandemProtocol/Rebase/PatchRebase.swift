/// Rewrites a patch made on an older state of a room for the state after the patches applied since,
/// the way operational transformation does for lists (ShareDB's json0): array indexes shift past
/// the elements inserted and removed in between, so "remove the item I see at 3" removes that item
/// and two appends both land. The server rebases a `patch` over what was applied after its `base`;
/// the client rebases its pending patches over each remote change with the same function, so both
/// arrive at the same ops.
///
/// Rules, for an op's location past one concurrent array edit (the edit was applied first):
/// - An index at or after an inserted element's index moves one up; so an element inserted at the
///   same index as another goes after it (first applied, first placed).
/// - An index after a removed element moves one down. An op on the removed element itself, or on
///   anything inside it, is dropped (`set`, `replace`, `remove`, `add` inside it, `copy` and `move`
///   from it); `add` at its index still inserts there; a `test` of it fails the patch
///   (`test_failed`); a `move` whose destination lies inside it becomes a `remove` of its source.
/// - `-` (the end of an array) and object members are never rewritten: concurrent writes to one
///   member stay last-writer-wins, as without a base.
///
/// The edits are rewritten too, for the state in which the patch came first: that is what the next
/// patch of the same author, made on top of this one, is rebased over.
public enum PatchRebase {
    /// `ops`, made on some state, rewritten for the state after `changes`: the array edits of the
    /// patches applied since, oldest first. Ops that lost their target are left out; the result may
    /// be empty.
    ///
    /// On return `changes` holds each patch's edits rewritten for the state in which `ops` came first
    /// (an edit of an element that `ops` removed or replaced is left out). Unchanged when it throws.
    /// - Throws: `PatchError.testFailed` when a `test` looks at an element one of `changes` removed.
    public static func rebase(_ ops: [PatchOp], over changes: inout [[ArrayEdit]]) throws(PatchError) -> [PatchOp] {
        guard changes.contains(where: { !$0.isEmpty }) else { return ops }
        var edits: [ArrayEdit?] = changes.flatMap { $0 }
        var rebased: [PatchOp] = []
        rebased.reserveCapacity(ops.count)
        for (index, op) in ops.enumerated() {
            if let op = try rebase(op, index: index, over: &edits) { rebased.append(op) }
        }
        var start = 0
        for patch in changes.indices {
            let end = start + changes[patch].count
            changes[patch] = edits[start..<end].compactMap { $0 }
            start = end
        }
        return rebased
    }

    /// What a location does to the document, for rewriting edits past it.
    private enum Role {
        /// Looks only (`test`, the source of `copy`).
        case read
        /// Puts a value where one is or may be (`set`, `replace`).
        case write
        /// Takes out what is there (`remove`, the source of `move`).
        case delete
        /// `add`: inserts into an array, or writes an object member.
        case insert
    }

    private static func rebase(_ op: PatchOp, index: Int, over edits: inout [ArrayEdit?]) throws(PatchError) -> PatchOp? {
        switch op {
        case .set(let path, let value):
            return location(path, .write, over: &edits).map { .set($0, value) }
        case .replace(let path, let value):
            return location(path, .write, over: &edits).map { .replace($0, value) }
        case .remove(let path):
            return location(path, .delete, over: &edits).map { .remove($0) }
        case .add(let path, let value):
            return location(path, .insert, over: &edits).map { .add($0, value) }
        case .test(let path, let value):
            guard let path = location(path, .read, over: &edits) else { throw .testFailed(op: index, path: path.description) }
            return .test(path, value)
        case .copy(let from, let to):
            guard let from = location(from, .read, over: &edits), let to = location(to, .insert, over: &edits) else { return nil }
            return .copy(from: from, to: to)
        case .move(let from, let to):
            // Moving a value onto itself changes nothing, and shifts nothing.
            if from == to { return location(from, .read, over: &edits).map { .move(from: $0, to: $0) } }
            guard let from = location(from, .delete, over: &edits) else { return nil }
            guard let to = location(to, .insert, over: &edits) else { return .remove(from) }
            return .move(from: from, to: to)
        }
    }

    /// `pointer` past every edit in turn (nil once one took its target away), each edit rewritten
    /// past the location's effect on the way.
    private static func location(_ pointer: JSONPointer, _ role: Role, over edits: inout [ArrayEdit?]) -> JSONPointer? {
        let tokens = pointer.tokens
        // Indexes are read once and shifted as numbers; only shifted tokens are written back at the end.
        var indexes = tokens.map(JSONPointer.arrayIndex)
        let original = indexes
        for position in edits.indices {
            guard let edit = edits[position] else { continue }
            edits[position] = self.edit(edit, after: role, at: tokens, indexes)
            guard location(&indexes, tokens, role, after: edit) else { return nil }
        }
        guard indexes != original else { return pointer }
        var shifted = tokens
        for level in indexes.indices where indexes[level] != original[level] {
            if let index = indexes[level] { shifted[level] = String(index) }
        }
        return JSONPointer(tokens: shifted)
    }

    /// Whether step `level` of a location (its token and, when it is one, its index) is `step`.
    private static func matches(_ step: PathStep, _ tokens: [String], _ indexes: [Int?], at level: Int) -> Bool {
        switch step {
        case .member(let name): tokens[level] == name
        case .element(let index): indexes[level] == index
        }
    }

    /// Moves the location (made on the state before `edit`) to the state after it; false when the
    /// edit removed the element it is at or inside.
    private static func location(_ indexes: inout [Int?], _ tokens: [String], _ role: Role, after edit: ArrayEdit) -> Bool {
        let depth = edit.array.count
        guard indexes.count > depth, let position = indexes[depth] else { return true }
        for level in 0..<depth where !matches(edit.array[level], tokens, indexes, at: level) { return true }
        switch edit.kind {
        case .insert:
            if position >= edit.index { indexes[depth] = position + 1 }
        case .remove:
            if position > edit.index {
                indexes[depth] = position - 1
            } else if position == edit.index, !(role == .insert && indexes.count == depth + 1) {
                return false
            }
        }
        return true
    }

    /// `edit` (made on the same state as the location `tokens`) on the state after the location's
    /// effect; nil when that effect took away the edited array or element.
    private static func edit(_ edit: ArrayEdit, after role: Role, at tokens: [String], _ indexes: [Int?]) -> ArrayEdit? {
        guard role != .read else { return edit }
        // A write at the root replaces everything.
        guard let last = tokens.indices.last else { return nil }
        let depth = edit.array.count
        // Deeper than the edited element: inside one element, which keeps every position.
        guard last <= depth else { return edit }
        for level in 0..<last where !matches(edit.array[level], tokens, indexes, at: level) { return edit }
        let step = last == depth ? PathStep.element(edit.index) : edit.array[last]
        switch step {
        case .member(let name):
            // The member holding the array is written, removed or added anew.
            return tokens[last] == name ? nil : edit
        case .element(let at):
            // `-` appends after every element; any other non-index fails to apply.
            guard let position = indexes[last] else { return edit }
            var result = edit
            if last == depth {
                switch (role, edit.kind) {
                case (.insert, .insert): if position < at { result.index += 1 }
                case (.insert, .remove): if position <= at { result.index += 1 }
                case (.delete, .insert): if position < at { result.index -= 1 }
                case (.delete, .remove):
                    if position < at { result.index -= 1 } else if position == at { return nil }
                case (.write, _), (.read, _): break
                }
            } else {
                switch role {
                case .insert: if position <= at { result.array[last] = .element(at + 1) }
                case .delete:
                    if position < at { result.array[last] = .element(at - 1) } else if position == at { return nil }
                case .write: if position == at { return nil }
                case .read: break
                }
            }
            return result
        }
    }
}
