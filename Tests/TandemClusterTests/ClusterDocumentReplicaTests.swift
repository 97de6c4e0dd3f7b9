import Testing
@testable import TandemCluster
import TandemProtocol

@Suite("Cluster engine: the node's replica of a room")
struct ClusterDocumentReplicaTests {
    static func patch(_ rev: Int64, _ ops: String) -> SequencedPatch {
        SequencedPatch(epoch: "e", rev: rev, user: "u", client: "c", seq: rev, ops: Array(ops.utf8))
    }

    @Test("a local patch is folded when it is valid within the limits; otherwise the reason comes back and the replica is as it was")
    func foldIfValidIsAllOrNothing() throws {
        var limits = PatchLimits()
        limits.maxOps = 2
        var replica = try ClusterDocumentReplica(snapshot: nil, limits: limits)
        #expect(replica.foldIfValid(Self.patch(1, #"[{"op":"set","path":"/a","value":1}]"#), parsed: nil) == nil)
        let before = replica.state
        // The second op fails after the first applied: both are taken back.
        let beneath = replica.foldIfValid(Self.patch(2, #"[{"op":"set","path":"/b","value":2},{"op":"set","path":"/a/x","value":3}]"#), parsed: nil)
        let code = beneath.map { ClusterRejection.decode($0).code }
        #expect(code == .pathNotFound || code == .invalidPath, "\(beneath ?? "nil")")
        #expect(replica.state == before)
        let many = replica.foldIfValid(Self.patch(2, #"[{"op":"set","path":"/b","value":1},{"op":"set","path":"/c","value":1},{"op":"set","path":"/d","value":1}]"#), parsed: nil)
        #expect(many.map { ClusterRejection.decode($0).code } == .tooManyOps)
        #expect(replica.foldIfValid(Self.patch(2, "not json"), parsed: nil).map { ClusterRejection.decode($0).code } == .invalidOp)
        #expect(replica.state == before)
        // Folding a logged patch ignores the limits: the author's node checked them.
        try replica.fold(Self.patch(2, #"[{"op":"set","path":"/b","value":1},{"op":"set","path":"/c","value":1},{"op":"set","path":"/d","value":1}]"#))
        #expect(replica.state == Array(#"{"a":1,"b":1,"c":1,"d":1}"#.utf8))
    }
}
