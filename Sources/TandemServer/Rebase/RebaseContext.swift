import TandemProtocol

/// What one client's next patch with an older `base` is rebased over: the other clients' array edits
/// after that base, each already rewritten past this client's own patches applied after it (which
/// that next patch was made on top of). Kept per client that sends a `base`, by whoever sequences
/// its patches (the room's core, a cluster node).
///
/// The changes after `through` are not here: they are the room's edit history as applied.
package struct RebaseContext: Sendable {
    /// One other client's patch, as this client's next patch sees it.
    package struct Change: Sendable {
        package var rev: Int64
        package var edits: [ArrayEdit]
    }

    /// The base of the client's last patch: changes at or before it are not held.
    package var since: Int64
    /// The rev up to which `changes` are rewritten (the room's rev when the client's last patch was handled).
    package var through: Int64
    /// Changes with rev in (`since`, `through`], oldest first.
    package var changes: [Change]
}
