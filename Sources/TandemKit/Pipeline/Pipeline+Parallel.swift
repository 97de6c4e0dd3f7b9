extension Pipeline {
    /// Appends one step named `name` that runs every child at once on this pipeline's output and
    /// yields their outputs in the children's order.
    ///
    /// Fails fast: the first child error (or timeout) cancels the other children and becomes the
    /// step's error, with the child named `name/child`. Each child keeps its own retry and timeout.
    /// The group counts as one step for progress and pausing; children emit only `.retrying` events.
    public func parallel<Child: Sendable>(name: String, _ children: [PipelineStep<Output, Child>]) -> Pipeline<Input, [Child]> {
        then(PipelineStep<Output, [Child]>(name: name) { input, context, index, name in
            try await Self.runAll(children.map { child in
                { @Sendable () async throws -> Child in try await child.execute(input, context, index, "\(name)/\(child.name)") }
            })
        })
    }

    /// Appends one step named `name` that runs `first` and `second` at once and yields both outputs
    /// — e.g. "upload the image ∥ post the text". Fails fast like `parallel(name:_:)` for arrays.
    public func parallel<A: Sendable, B: Sendable>(
        name: String,
        _ first: PipelineStep<Output, A>,
        _ second: PipelineStep<Output, B>
    ) -> Pipeline<Input, (A, B)> {
        then(PipelineStep<Output, (A, B)>(name: name) { input, context, index, name in
            let results = try await Self.runAll([
                { @Sendable () async throws -> Either<A, B> in .first(try await first.execute(input, context, index, "\(name)/\(first.name)")) },
                { @Sendable () async throws -> Either<A, B> in .second(try await second.execute(input, context, index, "\(name)/\(second.name)")) },
            ])
            guard case let .first(a) = results[0], case let .second(b) = results[1] else {
                preconditionFailure("parallel results are stored in child order")
            }
            return (a, b)
        })
    }

    /// Runs `jobs` concurrently and returns their results in order; the first error cancels the rest.
    private static func runAll<R: Sendable>(_ jobs: [@Sendable () async throws -> R]) async throws -> [R] {
        try await withThrowingTaskGroup(of: (Int, R).self) { group in
            for (offset, job) in jobs.enumerated() {
                group.addTask { (offset, try await job()) }
            }
            var results = [R?](repeating: nil, count: jobs.count)
            do {
                for try await (offset, value) in group {
                    results[offset] = value
                }
            } catch {
                group.cancelAll()
                throw error
            }
            return results.map { $0! }
        }
    }
}

/// One of two child results of a two-way parallel step.
private enum Either<A: Sendable, B: Sendable>: Sendable {
    case first(A)
    case second(B)
}
