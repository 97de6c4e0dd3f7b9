/// A change to the positions of one array's elements: an element inserted at `index` or removed
/// from it. These are the only changes a concurrent patch must be rebased over (`PatchRebase`):
/// every other change leaves the locations of the rest of the document as they were.
///
/// `Document.apply(_:limits:edits:)` records them as it applies a patch, with the array's location
/// typed step by step, so that the edit can later be matched against plain JSON Pointers.
public struct ArrayEdit: Sendable, Hashable {
    /// What happened at `index`.
    public enum Kind: Sendable, Hashable {
        /// An element was inserted; those at `index` and after moved one place up.
        case insert
        /// The element at `index` was removed; those after it moved one place down.
        case remove
    }

    /// Insert or remove.
    public var kind: Kind
    /// The location of the array, from the document root.
    public var array: [PathStep]
    /// The position in the array.
    public var index: Int

    /// An edit of the array at `array`.
    public init(_ kind: Kind, array: [PathStep], index: Int) {
        self.kind = kind
        self.array = array
        self.index = index
    }
}

extension ArrayEdit: CustomStringConvertible {
    /// `insert /cart/0/items 2` style, for logs and test failures.
    public var description: String {
        let path = array.map { step in
            switch step {
            case .member(let name): "/" + JSONPointer(tokens: [name]).description.dropFirst()
            case .element(let index): "/\(index)"
            }
        }.joined()
        return "\(kind == .insert ? "insert" : "remove") \(path.isEmpty ? "\"\"" : path) \(index)"
    }
}
