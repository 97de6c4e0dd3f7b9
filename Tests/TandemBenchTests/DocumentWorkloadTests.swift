import Testing
import TandemProtocol
@testable import TandemBench

/// The protocol suite's document workload, held to its bound in every test run.
@Suite struct DocumentWorkloadTests {
    private func pointer(_ text: String) -> JSONPointer { try! JSONPointer(parsing: text) }

    @Test func largeDocumentPatchesStayFast() throws {
        var doc = DocumentBenchmark.sampleDocument()
        #expect(doc.byteCount > 1_000_000 && doc.byteCount < 1 << 20)
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            for round in 0..<20 { try doc.apply(DocumentBenchmark.samplePatch(round: round)) }
        }
        #expect(doc.root[pointer("/section19/field3")] == 19)
        #expect(doc.root[pointer("/section0/field3")] == 0)
        let serialization = clock.measure { _ = doc.root.serializedBytes() }
        // 2 000 ops must cost less than serializing the document once. Copying the top-level
        // object per op costs about as much as one serialization per 2 000 ops, re-serializing
        // per op 2 000 times as much; in-place application is several times below the bound.
        #expect(elapsed < serialization, "2000 ops took \(elapsed), one serialization \(serialization)")
    }
}
