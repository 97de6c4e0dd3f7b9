/// The steps of a pipeline whose every step maps a value to a value of the same type, kept flat so
/// the run calls them from one loop (see `Pipeline.sameTypeSteps`).
///
/// The loop has the shape of plain `await`s one after another: per step one indirect call of the
/// user's closure and no closure frame of the pipeline's own around it (each async frame is
/// measurable against direct calls; see docs/bench/pipeline.md). Names, plain closures and policy
/// wrappers are separate arrays so that a step costs the load of one closure, not a copy of a
/// record.
@usableFromInline
struct SameTypeSteps<Value: Sendable>: Sendable {
    @usableFromInline
    var names: [String] = []
    /// The user's function of each step that has no retry or timeout, else nil.
    @usableFromInline
    var plain: [(@Sendable (Value) async throws -> Value)?] = []
    /// Each step with its policies; used when `plain` is nil.
    @usableFromInline
    var execute: [@Sendable (Value, RunContext, Int, String) async throws -> Value] = []
    /// True when no step has a retry, a timeout or a parallel group, i.e. `runUnobserved` applies.
    @usableFromInline
    var allPlain = true

    @inlinable
    init() {}

    /// These steps followed by `step`, whose types the caller proved equal to `Value`.
    ///
    /// - Precondition: `Input.self == Value.self && Output.self == Value.self` (checked at run time
    ///   by the caller). Reinterpreting the closures then changes nothing but their static type: in
    ///   generic code both function types have the same representation.
    @inlinable
    func appending<Input, Output>(unsafeCasting step: PipelineStep<Input, Output>) -> Self {
        var steps = self
        steps.names.append(step.name)
        steps.allPlain = allPlain && step.plain != nil
        steps.plain.append(step.plain.map { unsafeBitCast($0, to: (@Sendable (Value) async throws -> Value).self) })
        steps.execute.append(unsafeBitCast(step.execute, to: (@Sendable (Value, RunContext, Int, String) async throws -> Value).self))
        return steps
    }

    /// The body of a pipeline made of these steps (for composition and controllable runs).
    ///
    /// - Precondition: `Output.self == Value.self`. The closure is built with the pipeline's own
    ///   result type rather than cast to it afterwards: casting a function value in generic code
    ///   wraps it in two reabstraction thunks, i.e. extra async frames on every run.
    @inlinable
    func body<Output>(returning _: Output.Type) -> @Sendable (Value, RunContext, Int) async throws -> Output {
        { input, context, base in
            unsafeBitCast(try await run(input, context, base: base), to: Output.self)
        }
    }

    /// Runs the steps on `input`, the first one having index `base` in the whole pipeline: the same
    /// boundary checks, progress events and error mapping as the closure chain in `Pipeline.then`,
    /// in one loop.
    @inlinable
    func run(_ input: Value, _ context: RunContext, base: Int) async throws -> Value {
        var value = input
        var offset = 0
        // An index loop, not `for in`: the iterator over an array of closures asks the runtime
        // for the closure type's metadata on every run. Names are read only off the fast path
        // (pause, progress, failure), so a step costs no retain of its name.
        while offset < plain.count {
            if context.mustWait { try await waitUntilRunnable(offset, context, base: base) }
            if context.progress != nil { report(offset, .started, context, base: base) }
            if let step = plain[offset] {
                do {
                    value = try await step(value)
                } catch {
                    throw failure(error, offset, context, base: base)
                }
            } else {
                value = try await execute[offset](value, context, base + offset, names[offset])
            }
            if context.progress != nil { report(offset, .finished, context, base: base) }
            offset += 1
        }
        return value
    }

    /// Runs the steps on `input` for `Pipeline.run` when nobody observes progress, so that only
    /// the calling task can stop the run (nobody holds a `PipelineRun` to pause or cancel it).
    ///
    /// - Precondition: `allPlain`.
    ///
    /// The same guarantees as `run` (no step starts once the task is cancelled, a failure names its
    /// step, anything thrown while cancelled becomes `.cancelled`) without a `RunContext`: no
    /// allocation, no environment copy and no pause flag per run, one cancelled-bit check per step.
    @inlinable
    func runUnobserved(_ input: Value) async throws(PipelineError) -> Value {
        var value = input
        var offset = 0
        while offset < plain.count {
            if Task.isCancelled { throw .cancelled }
            do {
                value = try await plain[offset].unsafelyUnwrapped(value)
            } catch {
                throw unobservedFailure(error, offset)
            }
            offset += 1
        }
        return value
    }

    @usableFromInline
    func unobservedFailure(_ error: any Error, _ offset: Int) -> PipelineError {
        PipelineError.normalize(error, cancelled: Task.isCancelled, index: offset, name: names[offset], attempts: 1)
    }

    @usableFromInline
    func waitUntilRunnable(_ offset: Int, _ context: RunContext, base: Int) async throws {
        try await context.waitUntilRunnable(base + offset, names[offset])
    }

    @usableFromInline
    func report(_ offset: Int, _ phase: PipelineProgress.Phase, _ context: RunContext, base: Int) {
        if let progress = context.progress { context.report(progress, base + offset, names[offset], phase) }
    }

    @usableFromInline
    func failure(_ error: any Error, _ offset: Int, _ context: RunContext, base: Int) -> PipelineError {
        PipelineError.normalize(error, context: context, index: base + offset, name: names[offset], attempts: 1)
    }
}
