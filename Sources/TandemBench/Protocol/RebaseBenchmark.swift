import TandemProtocol

/// What rebasing costs: a 10-op patch on a 1,000-item list, made 100 concurrent inserts and removals
/// behind, rebased over them (`PatchRebase`), against applying the rebased patch to the list (the work
/// the server does for every patch anyway). Thread CPU time.
enum RebaseBenchmark {
    /// Timings of one run.
    struct Report: Sendable, CustomStringConvertible {
        /// Array edits the patch is rebased over.
        var edits: Int
        /// CPU time of one rebase, in microseconds.
        var microsecondsPerRebase: Double
        /// CPU time of applying the rebased patch once, in microseconds.
        var microsecondsPerApply: Double

        /// Rebase cost as a share of the apply.
        var ratio: Double { microsecondsPerRebase / microsecondsPerApply }

        /// A short multi-line summary.
        var description: String {
            """
            a 10-op patch on a 1,000-item list rebased over \(edits) concurrent edits:
              rebase                               \(String(format: "%.1f", microsecondsPerRebase)) µs
              reference: apply the rebased patch   \(String(format: "%.1f", microsecondsPerApply)) µs
              rebase / apply                       \(String(format: "%.2f", ratio))x
            """
        }
    }

    static func run(repetitions: Int = 2_000) -> Report {
        let cart = JSONPointer(tokens: ["cart"])
        var document = Document(["cart": .array((0..<1_000).map { .object(["id": .number(Double($0)), "qty": 1]) })])
        let base = document
        // The concurrent changes: 100 single-element inserts and removals spread over the list.
        var edits: [ArrayEdit] = []
        for round in 0..<100 {
            let index = (round * 37) % 900
            let op: PatchOp = round.isMultiple(of: 2)
                ? .add(cart.appending(String(index)), .object(["id": .number(Double(10_000 + round)), "qty": 1]))
                : .remove(cart.appending(String(index)))
            try? document.apply([op], edits: &edits)
        }
        // The late patch: writes inside items, a removal, inserts and a move, as one author saw the list.
        let patch: [PatchOp] = (0..<10).map { step in
            switch step % 4 {
            case 0: .set(JSONPointer(tokens: ["cart", String(step * 90 + 5), "qty"]), 2)
            case 1: .remove(cart.appending(String(step * 90 + 7)))
            case 2: .add(cart.appending(String(step * 90)), .object(["id": .number(Double(-step)), "qty": 1]))
            default: .move(from: cart.appending(String(step * 90 + 3)), to: cart.appending("0"))
            }
        }
        var rebased: [PatchOp] = []
        let rebasing = JSONBenchmark.measureCPU {
            for _ in 0..<repetitions {
                var changes = [edits]
                rebased = (try? PatchRebase.rebase(patch, over: &changes)) ?? []
            }
        }
        precondition(!rebased.isEmpty, "the benchmark patch must rebase")
        var failures = 0
        let applying = JSONBenchmark.measureCPU {
            for _ in 0..<repetitions {
                var copy = document
                do { try copy.apply(rebased) } catch { failures += 1 }
            }
        }
        precondition(failures == 0 && base != document, "the rebased patch must apply")
        func microseconds(_ duration: Duration) -> Double { Double(duration.totalNanoseconds) / 1_000 }
        return Report(edits: edits.count, microsecondsPerRebase: microseconds(rebasing) / Double(repetitions),
                      microsecondsPerApply: microseconds(applying) / Double(repetitions))
    }
}
