/// One named job of a pipeline, `(Input) async throws -> Output`, with an optional retry policy
/// and per-attempt timeout.
///
/// Steps are values: build a pipeline from steps passed in (e.g. a struct of steps with a `live`
/// default) and a test can replace any of them with a fake of the same type.
public struct PipelineStep<Input: Sendable, Output: Sendable>: Sendable {
    /// The step's name, used in progress events, errors and parallel children's names.
    public let name: String
    /// How failures are retried, or nil for a single attempt.
    public let retry: RetryPolicy?
    /// How long each attempt may take, or nil for no limit.
    public let timeout: Duration?

    /// The user's function when no policy wraps it; lets the pipeline call it without a wrapper.
    @usableFromInline
    let plain: (@Sendable (Input) async throws -> Output)?
    /// Runs the step with its policies; throws only `PipelineError`.
    @usableFromInline
    let execute: @Sendable (Input, RunContext, _ index: Int, _ name: String) async throws -> Output

    /// Creates a step named `name` running `body` (sync or async), retried per `retry` and limited
    /// per attempt by `timeout` on the run's clock.
    ///
    /// A timeout cancels the attempt and waits for it to return (cancellation is cooperative).
    @inlinable
    public init(
        _ name: String,
        retry: RetryPolicy? = nil,
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (Input) async throws -> Output
    ) {
        self.name = name
        self.retry = retry
        self.timeout = timeout
        if retry == nil && timeout == nil {
            plain = body
            execute = { input, context, index, name in
                do {
                    return try await body(input)
                } catch {
                    throw PipelineError.normalize(error, context: context, index: index, name: name, attempts: 1)
                }
            }
        } else {
            plain = nil
            execute = { input, context, index, name in
                try await Self.attempts(body, retry: retry, timeout: timeout, input: input, context: context, index: index, name: name)
            }
        }
    }

    /// A step whose execution needs the run's context (parallel groups).
    init(name: String, execute: @escaping @Sendable (Input, RunContext, Int, String) async throws -> Output) {
        self.name = name
        retry = nil
        timeout = nil
        plain = nil
        self.execute = execute
    }

    /// A copy of this step under another name (same body and policies).
    public func named(_ newName: String) -> Self {
        Self(name: newName, retry: retry, timeout: timeout, plain: plain, execute: execute)
    }

    private init(name: String, retry: RetryPolicy?, timeout: Duration?, plain: (@Sendable (Input) async throws -> Output)?, execute: @escaping @Sendable (Input, RunContext, Int, String) async throws -> Output) {
        self.name = name
        self.retry = retry
        self.timeout = timeout
        self.plain = plain
        self.execute = execute
    }

    @usableFromInline
    static func attempts(
        _ body: @escaping @Sendable (Input) async throws -> Output,
        retry: RetryPolicy?,
        timeout: Duration?,
        input: Input,
        context: RunContext,
        index: Int,
        name: String
    ) async throws -> Output {
        var attempt = 1
        while true {
            do {
                if let timeout {
                    return try await withTimeout(timeout, clock: context.environment.clock) { try await body(input) }
                }
                return try await body(input)
            } catch {
                guard !context.isCancelled else { throw PipelineError.cancelled }
                guard let retry, attempt < retry.maxAttempts, retry.shouldRetry(error) else {
                    throw PipelineError.normalize(error, context: context, index: index, name: name, attempts: attempt)
                }
                let delay = retry.delay(beforeRetry: attempt, random: context.environment.random())
                attempt += 1
                context.progress?(PipelineProgress(index: index, count: context.count, name: name, phase: .retrying(attempt: attempt, after: delay)))
                do {
                    try await context.environment.clock.sleep(for: delay)
                } catch {
                    throw PipelineError.cancelled
                }
                guard !context.isCancelled else { throw PipelineError.cancelled }
            }
        }
    }

    @usableFromInline
    static func withTimeout(
        _ timeout: Duration,
        clock: any Clock<Duration>,
        _ operation: @escaping @Sendable () async throws -> Output
    ) async throws -> Output {
        try await withThrowingTaskGroup(of: Output.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await clock.sleep(for: timeout)
                throw PipelineStepTimeout(duration: timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw PipelineStepTimeout(duration: timeout) }
            return first
        }
    }
}
