import Testing
import TandemProtocol
import TandemTestSupport
@testable import TandemServer

/// The admission vectors a cluster's sequencer answers too (`AdmissionVectors`): a participant's patch
/// over the socket and a backend's write over the rooms API meet the same rules and get the same code
/// and message.
@Suite struct PatchAdmissionVectorTests {
    @Test func aParticipantsPatchIsAdmittedOrRejectedAsTheVectorsSay() async throws {
        let vectors = try AdmissionVectors.load()
        #expect(vectors.cases.count >= 12)
        var configuration = ServerConfiguration()
        configuration.maxOpsPerPatch = vectors.maxOps
        let server = ServerHarness(configuration: configuration)
        let (session, sink, _) = await server.join(user: "alice", client: "a1")
        for (index, vector) in vectors.cases.enumerated() {
            let seq = Int64(index + 1)
            session.receive(Array(#"{"type":"patch","seq":\#(seq),"ops":\#(vector.text)}"#.utf8))
            let reply = await sink.nextMessage()
            if let code = vector.code {
                #expect(reply == .reject(seq: seq, code: code, message: vector.message ?? ""), "case \(index)")
            } else {
                guard case .ack(let acked, _, _, _)? = reply, acked == seq else { Issue.record("case \(index): \(String(describing: reply))"); continue }
            }
        }
    }

    @Test func aWriteOverTheRoomsAPIIsAdmittedOrRefusedAsTheVectorsSay() async throws {
        let vectors = try AdmissionVectors.load()
        let harness = try InviteServer { $0.maxOpsPerPatch = vectors.maxOps }
        let backend = harness.token(user: "backend", room: TokenClaims.anyRoom)
        for (index, vector) in vectors.cases.enumerated() {
            let reply = try await harness.call("POST", "/v1/rooms/lobby/patch", token: backend, json: #"{"ops":\#(vector.text)}"#)
            if let code = vector.code {
                #expect(reply.json?["error"]?.stringValue == code.wireValue && reply.json?["message"]?.stringValue == vector.message,
                        "case \(index): \(reply)")
            } else {
                #expect(reply.status == 200, "case \(index): \(reply)")
            }
        }
        await harness.shutdown()
    }
}
