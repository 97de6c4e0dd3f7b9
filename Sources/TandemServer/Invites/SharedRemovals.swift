/// Where removals live when several servers share rooms (a cluster's Redis): written there before the
/// answer, and mirrored by every node into its own `DenyList`, so a removal made on one node holds on all
/// of them and across restarts. A server alone has none (`SequencingService.sharedRemovals` is nil).
package protocol SharedRemovals: Sendable {
    /// Every removal in force, for every room.
    func all() async throws(SequencingError) -> [StoredDenial]
    /// Records a removal.
    func save(_ denial: StoredDenial) async throws(SequencingError)
    /// Lets `user` into `room` again; returns whether they had been removed.
    func delete(room: String, user: String) async throws(SequencingError) -> Bool
}
