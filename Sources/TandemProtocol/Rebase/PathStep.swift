/// One step of a location in a document, typed by the container it is taken in: a member of an
/// object or an element of an array.
///
/// A JSON Pointer token alone cannot say which (`/items/3` is an element of an array or the member
/// `"3"` of an object); positions only shift in arrays, so an edit keeps the steps it was made at.
public enum PathStep: Sendable, Hashable {
    /// The member with this name of an object.
    case member(String)
    /// The element at this index of an array.
    case element(Int)
}
