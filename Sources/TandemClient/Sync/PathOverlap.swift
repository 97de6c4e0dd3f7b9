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
    /// True when applying `newer` after `self` leaves the document as `newer` alone would, so
    /// `self` can be dropped from an unsent patch ("newest value wins").
    ///
    /// A `set` at or above a path decides everything below it, and creates the same ancestors.
    /// A `remove` only supersedes removes at or below it: a `set` below it may have created
    /// ancestors the `remove` leaves in place.
    func isSuperseded(by newer: PatchOp) -> Bool {
        switch (self, newer) {
        case (_, .set(let path, _)): self.path.isWithin(path)
        case (.remove(let path), .remove(let newerPath)): path.isWithin(newerPath)
        case (.set, .remove): false
        }
    }

    /// True when `self` can be dropped from an unsent patch that `newer` follows: the first op of `newer`
    /// that touches this op's path supersedes it. An op of `newer` that touches the path before a
    /// superseding one sees what `self` left there (it may set a member inside an object `self` created),
    /// so then `self` must stay.
    func isDecided(by newer: [PatchOp]) -> Bool {
        guard let first = newer.first(where: { $0.path.overlaps(path) }) else { return false }
        return isSuperseded(by: first)
    }
}
