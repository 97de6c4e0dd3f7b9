import TandemProtocol

extension JSONPointer {
    /// True when `self` is `other` or lies below it.
    func isWithin(_ other: JSONPointer) -> Bool {
        tokens.count >= other.tokens.count && tokens.starts(with: other.tokens)
    }

    /// True when one path is the other or lies below it: ops on them do not commute.
    func overlaps(_ other: JSONPointer) -> Bool {
        isWithin(other) || other.isWithin(self)
    }
}

extension PatchOp {
    /// Every location the op reads or writes: its path, and `from` for `move` and `copy`.
    var touchedPaths: [JSONPointer] {
        from.map { [$0, path] } ?? [path]
    }

    /// The containers in which the op may insert or take out elements, shifting the indexes of the
    /// elements after them (it cannot tell an array from an object by the path alone).
    private var shiftedContainers: [JSONPointer] {
        switch self {
        case .add(let path, _), .remove(let path), .copy(_, let path): [path].filter(\.mayBeElement).map(\.parent)
        case .move(let from, let path): [from, path].filter(\.mayBeElement).map(\.parent)
        case .set, .replace, .test: []
        }
    }

    /// The locations a later `set` must cover for this op to make no difference: the value an op puts
    /// in place is decided by a set at or above it, but an insert or removal shifts its container, so
    /// only a set of that whole container decides it.
    private var decidingPaths: [JSONPointer] {
        switch self {
        case .set(let path, _), .replace(let path, _): [path]
        case .add(let path, _), .remove(let path): [path.elementContainer]
        case .move(let from, let path): [from.elementContainer, path.elementContainer]
        case .copy(_, let path): [path.elementContainer]
        case .test: []
        }
    }

    /// True when applying `newer` after `self` leaves the document as `newer` alone would, so
    /// `self` can be dropped from an unsent patch ("newest value wins").
    ///
    /// A `set` at or above an op's deciding locations decides it, and creates the same ancestors. A
    /// `remove` only supersedes a `remove` inside the container it takes out: a `set` below it may have
    /// created ancestors the `remove` leaves in place. A `test` is never dropped: it is its patch's
    /// condition.
    func isSuperseded(by newer: PatchOp) -> Bool {
        switch (self, newer) {
        case (.test, _): false
        case (_, .set(let path, _)): decidingPaths.allSatisfy { $0.isWithin(path) }
        case (.remove, .remove(let newerPath)): decidingPaths.allSatisfy { $0.isWithin(newerPath) }
        default: false
        }
    }

    /// True when the order of `self` and `other` matters: they touch overlapping locations, or one
    /// inserts or removes beside a location of the other (which then names another element).
    func interacts(with other: PatchOp) -> Bool {
        let mine = touchedPaths, theirs = other.touchedPaths
        return mine.contains { path in theirs.contains(where: path.overlaps) }
            || other.shiftedContainers.contains { container in mine.contains { $0.isWithin(container) } }
            || shiftedContainers.contains { container in theirs.contains { $0.isWithin(container) } }
    }

    /// True when `self` can be dropped from an unsent patch that `newer` follows: the first op of `newer`
    /// that interacts with it supersedes it. An op of `newer` that touches the location before a
    /// superseding one sees what `self` left there (it may set a member inside an object `self` created, or
    /// move it), and one that inserts or removes beside it changes what its index means; then `self` stays.
    func isDecided(by newer: [PatchOp]) -> Bool {
        guard let first = newer.first(where: interacts(with:)) else { return false }
        return isSuperseded(by: first)
    }
}

extension JSONPointer {
    /// The pointer to the container of this location (the root for the root).
    var parent: JSONPointer {
        JSONPointer(tokens: Array(tokens.dropLast()))
    }

    /// Whether the location may be an array element (its last token is an index or `-`), so that an
    /// insert or removal there shifts its neighbours.
    var mayBeElement: Bool {
        guard let last = tokens.last else { return false }
        return last == "-" || JSONPointer.arrayIndex(last) != nil
    }

    /// The location whose value decides an insert or removal here: the container for an element,
    /// the location itself for an object member.
    var elementContainer: JSONPointer {
        mayBeElement ? parent : self
    }
}
