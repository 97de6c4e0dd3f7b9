import Foundation
import Testing
import TandemProtocol

/// The patch vectors shared with the web client library (`Tests/Fixtures/patch-vectors.json`, which its
/// node tests run too): the server's `Document` applies each as the vector says, or refuses it whole.
@Suite struct PatchVectorTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/patch-vectors.json")

    @Test func everySharedVectorAppliesAsItSays() throws {
        let vectors = try #require(try JSONValue.parse(String(contentsOf: Self.file, encoding: .utf8)).arrayValue)
        #expect(vectors.count >= 25)
        for (index, vector) in vectors.enumerated() {
            let start = try #require(vector["document"]), encodedOps = try #require(vector["ops"])
            var document = try #require(Document(start))
            let ops = try PatchOp.list(from: encodedOps)
            let expected = try #require(vector["expected"])
            do {
                try document.apply(ops)
                #expect(expected["document"] == document.root, "vector \(index)")
            } catch {
                #expect(expected["refused"] == true, "vector \(index) was refused: \(error)")
            }
        }
    }
}
