/// A typed waterfall: steps that run one after another, each step's output being the next one's
/// input. The first error stops the chain; no later step runs.
///
/// The chain is typed end to end: `then` only accepts a step whose input is the previous step's
/// output, so a mismatch is a compile error, and the result needs no cast. A pipeline is an
/// immutable, `Sendable` description; run it inline with `run(_:)`, or as a controllable
/// `PipelineRun` (start, pause between steps, resume, cancel; completion exactly once) with
/// `makeRun(_:)` / `start(_:)`.
public struct Pipeline<Input: Sendable, Output: Sendable>: Sendable {
    /// Runs the steps; the `Int` is the index of this pipeline's first step within the whole chain.
    @usableFromInline
    typealias Body = @Sendable (Input, RunContext, Int) async throws -> Output

    @usableFromInline
    let body: Body
    /// Every step when all of them map `Input` to `Input` (so `Output == Input`), else nil. `body`
    /// then runs them from one loop; any other pipeline runs as a chain of one closure per step.
    @usableFromInline
    let sameTypeSteps: SameTypeSteps<Input>?
    /// The steps' names, in order.
    public let stepNames: [String]

    /// The number of steps.
    public var count: Int { stepNames.count }

    @usableFromInline
    init(stepNames: [String], sameTypeSteps: SameTypeSteps<Input>? = nil, body: @escaping Body) {
        self.stepNames = stepNames
        self.sameTypeSteps = sameTypeSteps
        self.body = body
    }

    /// A pipeline of one step.
    @inlinable
    public init(_ step: PipelineStep<Input, Output>) {
        self = Pipeline<Input, Input>().then(step)
    }

    /// A pipeline of one step named `name` running `body`; see `PipelineStep.init`.
    @inlinable
    public init(name: String, retry: RetryPolicy? = nil, timeout: Duration? = nil, _ body: @escaping @Sendable (Input) async throws -> Output) {
        self.init(PipelineStep(name, retry: retry, timeout: timeout, body))
    }

    /// Appends `step`; it receives this pipeline's output.
    @inlinable
    public func then<Next: Sendable>(_ step: PipelineStep<Output, Next>) -> Pipeline<Input, Next> {
        // Every extra async frame per step is measurable against plain `await`s (see
        // docs/bench/pipeline.md). While all steps map `Input` to `Input`, they are kept flat and
        // run by one loop (no frame of the pipeline's own per step); the typed API proved the
        // chain, and the run-time check (folded away when specialized) proves the types equal.
        let name = step.name
        let names = stepNames + [name]
        if let sameTypeSteps, Output.self == Input.self, Next.self == Input.self {
            let steps = sameTypeSteps.appending(unsafeCasting: step)
            return Pipeline<Input, Next>(stepNames: names, sameTypeSteps: steps, body: steps.body(returning: Next.self))
        }
        // Otherwise one closure per step that calls the previous chain and then the step.
        let previous = body
        let localIndex = count
        if let plain = step.plain {
            return Pipeline<Input, Next>(stepNames: names) { input, context, base in
                let value = try await previous(input, context, base)
                let index = base + localIndex
                if context.mustWait { try await context.waitUntilRunnable(index, name) }
                context.started(index, name)
                let output: Next
                do {
                    output = try await plain(value)
                } catch {
                    throw PipelineError.normalize(error, context: context, index: index, name: name, attempts: 1)
                }
                context.finished(index, name)
                return output
            }
        }
        let execute = step.execute
        return Pipeline<Input, Next>(stepNames: names) { input, context, base in
            let value = try await previous(input, context, base)
            let index = base + localIndex
            if context.mustWait { try await context.waitUntilRunnable(index, name) }
            context.started(index, name)
            let output = try await execute(value, context, index, name)
            context.finished(index, name)
            return output
        }
    }

    /// Appends a step named `name` running `body` (sync or async) on this pipeline's output.
    @inlinable
    public func then<Next: Sendable>(
        name: String,
        retry: RetryPolicy? = nil,
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (Output) async throws -> Next
    ) -> Pipeline<Input, Next> {
        then(PipelineStep(name, retry: retry, timeout: timeout, body))
    }

    /// Appends every step of `next`, in order.
    @inlinable
    public func then<Next: Sendable>(_ next: Pipeline<Output, Next>) -> Pipeline<Input, Next> {
        let first = body
        let second = next.body
        let offset = count
        return Pipeline<Input, Next>(stepNames: stepNames + next.stepNames) { input, context, base in
            try await second(try await first(input, context, base), context, base + offset)
        }
    }

    /// Runs the pipeline in the calling task and returns the last step's output.
    ///
    /// Cancelling the calling task cancels the running step cooperatively and no later step starts
    /// (a last step that ignores cancellation and returns still yields its output). `onProgress` is
    /// called synchronously from the task running the step, in step order; only `.retrying` events
    /// of a parallel step's children can arrive concurrently, from the children's tasks.
    ///
    /// - Throws: the first step's failure or timeout, or `PipelineError.cancelled`.
    @inlinable
    public func run(
        _ input: Input,
        environment: PipelineEnvironment = .live,
        onProgress: (@Sendable (PipelineProgress) -> Void)? = nil
    ) async throws(PipelineError) -> Output {
        if onProgress == nil, let sameTypeSteps, sameTypeSteps.allPlain, Output.self == Input.self {
            // Nothing observes the run and no step needs the environment: only the calling task
            // can stop it, so the loop needs no context (see docs/bench/pipeline.md).
            return unsafeBitCast(try await sameTypeSteps.runUnobserved(input), to: Output.self)
        }
        let context = RunContext(environment: environment, count: count, progress: onProgress)
        do {
            if let sameTypeSteps, Output.self == Input.self {
                // Straight into the loop: no closure frame between `run` and the steps.
                return unsafeBitCast(try await sameTypeSteps.run(input, context, base: 0), to: Output.self)
            }
            return try await body(input, context, 0)
        } catch {
            throw PipelineError.normalize(error, context: context, index: 0, name: stepNames.first ?? "", attempts: 1)
        }
    }

    /// Prepares a controllable run of this pipeline on `input`; call `start()` (or `resume()`) on it.
    ///
    /// `completion` is called exactly once with the outcome, whatever it is (see `PipelineRun`);
    /// `onProgress` as for `run(_:environment:onProgress:)`.
    public func makeRun(
        _ input: Input,
        environment: PipelineEnvironment = .live,
        completion: (@Sendable (PipelineResult<Output>) -> Void)? = nil,
        onProgress: (@Sendable (PipelineProgress) -> Void)? = nil
    ) -> PipelineRun<Output> {
        let body = body
        return PipelineRun(count: count, environment: environment, onProgress: onProgress, completion: completion) { context in
            try await body(input, context, 0)
        }
    }

    /// Prepares and starts a run; the same as `makeRun` followed by `start()`.
    @discardableResult
    public func start(
        _ input: Input,
        environment: PipelineEnvironment = .live,
        completion: (@Sendable (PipelineResult<Output>) -> Void)? = nil,
        onProgress: (@Sendable (PipelineProgress) -> Void)? = nil
    ) -> PipelineRun<Output> {
        let run = makeRun(input, environment: environment, completion: completion, onProgress: onProgress)
        run.start()
        return run
    }
}

extension Pipeline where Input == Output {
    /// An empty pipeline that passes its input through; start a chain with `then`.
    @inlinable
    public init() {
        self.init(stepNames: [], sameTypeSteps: SameTypeSteps()) { input, _, _ in input }
    }
}
