/// The trailing run of a pipeline's plain steps whose input and output are the same type, run by
/// one loop instead of a chain of closures.
///
/// Why: in a closure chain every step costs two async frames (the chain's closure and the user's
/// step); the loop calls each user step directly from one frame, as a hand-written sequence of
/// `await`s would. Boundary checks (pause, cancel, progress) and error normalisation are the same
/// as in the chain, so behaviour does not depend on which form a step landed in.
@usableFromInline
struct SameTypeTail<Input: Sendable, Output: Sendable>: Sendable {
    @usableFromInline
    typealias Step = @Sendable (Output) async throws -> Output

    /// Runs the steps before the tail; nil when there are none (then `Input` is `Output`).
    @usableFromInline
    let head: Pipeline<Input, Output>.Body?
    /// The number of steps before the tail (the index of its first step).
    @usableFromInline
    let headCount: Int
    @usableFromInline
    var steps: [Step] = []
    @usableFromInline
    var names: [String] = []

    @usableFromInline
    init(head: Pipeline<Input, Output>.Body?, headCount: Int) {
        self.head = head
        self.headCount = headCount
    }

    @inlinable
    mutating func append(_ name: String, _ step: @escaping Step) {
        steps.append(step)
        names.append(name)
    }

    /// The pipeline body that runs the head, then every tail step in order.
    @inlinable
    func makeBody() -> Pipeline<Input, Output>.Body {
        let head = head
        let headCount = headCount
        let steps = steps
        let names = names
        return { input, context, base in
            var value = if let head { try await head(input, context, base) } else { unsafeBitCast(input, to: Output.self) }
            var index = base + headCount
            for position in steps.indices {
                let name = names[position]
                if context.mustWait { try await context.waitUntilRunnable(index, name) }
                context.started(index, name)
                do {
                    value = try await steps[position](value)
                } catch {
                    throw PipelineError.normalize(error, context: context, index: index, name: name, attempts: 1)
                }
                context.finished(index, name)
                index += 1
            }
            return value
        }
    }
}
