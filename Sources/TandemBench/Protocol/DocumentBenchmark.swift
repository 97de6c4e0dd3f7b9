import TandemProtocol

/// A micro-benchmark of patch application on a large document: 100-op patches applied to a
/// document of about 1 MiB, against the reference cost of serializing that document once per
/// patch (what a size check without incremental tracking would pay). Thread CPU time.
enum DocumentBenchmark {
    /// Timings of one run.
    struct Report: Sendable, CustomStringConvertible {
        /// Size of the document in bytes.
        var documentBytes: Int
        /// Patches applied (100 ops each).
        var patches: Int
        /// CPU time per applied patch, in microseconds.
        var microsecondsPerPatch: Double
        /// CPU time of one full serialization of the document, in microseconds.
        var microsecondsPerSerialization: Double

        /// How many times cheaper a patch is than one serialization of the document.
        var speedup: Double { microsecondsPerSerialization / microsecondsPerPatch }

        /// A short multi-line summary.
        var description: String {
            """
            \(patches) patches of 100 ops on a \(documentBytes)-byte document:
              apply (in place, incremental size)   \(Int(microsecondsPerPatch.rounded())) µs/patch
              reference: serialize the document    \(Int(microsecondsPerSerialization.rounded())) µs
              speedup (reference / apply)          \(Int(speedup.rounded()))x
            """
        }
    }

    /// A document of about 1 MiB (just under the default limit): `/section0` … `/section1999`,
    /// each an object of ten 38-character strings `field0` … `field9`.
    static func sampleDocument() -> Document {
        var members: [String: JSONValue] = [:]
        for section in 0..<2_000 {
            var fields: [String: JSONValue] = [:]
            for field in 0..<10 { fields["field\(field)"] = .string(String(repeating: "v", count: 38)) }
            members["section\(section)"] = .object(fields)
        }
        return Document(members)
    }

    /// Patch number `round` of the workload: 100 ops setting `/section…/field3` to `round`,
    /// spread over the document (20 consecutive rounds touch every section once).
    static func samplePatch(round: Int) -> [PatchOp] {
        (0..<100).map { index in
            PatchOp.set(JSONPointer(tokens: ["section\((index * 20 + round) % 2_000)", "field3"]), .number(Double(round)))
        }
    }

    /// Applies `patches` sample patches to the sample document.
    static func run(patches: Int = 200) -> Report {
        var document = sampleDocument()
        let workload = (0..<patches).map(samplePatch(round:))
        var failures = 0
        let applying = JSONBenchmark.measureCPU {
            for ops in workload {
                do { try document.apply(ops) } catch { failures += 1 }
            }
        }
        precondition(failures == 0, "benchmark patches must apply")
        var size = 0
        let serializing = JSONBenchmark.measureCPU {
            for _ in 0..<5 { size &+= document.root.serializedBytes().count }
        }
        func microseconds(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
        }
        return Report(
            documentBytes: size / 5, patches: patches, microsecondsPerPatch: microseconds(applying) / Double(patches),
            microsecondsPerSerialization: microseconds(serializing) / 5)
    }
}
