/// Turns one callback-style SDK call into an `async` call that resumes exactly once.
///
/// The first callback resumes the caller; any later one is reported to the injected reporter as
/// a `CallbackViolation` (never a crash, never a second resumption). A call can time out on the
/// injected clock, is cancelled with its task, and fails with `callbackDropped` if the SDK
/// releases its callbacks without calling them.
public struct CallbackBridge: Sendable {
    private let clock: any Clock<Duration>
    private let defaultTimeout: Duration?
    private let report: @Sendable (CallbackViolation) -> Void

    /// Creates a bridge.
    ///
    /// - Parameters:
    ///   - clock: measures time-outs.
    ///   - defaultTimeout: applies to calls that name none; `nil` waits without limit.
    ///   - reporter: receives every contract violation (log it loudly; tests collect it).
    public init(
        clock: any Clock<Duration> = ContinuousClock(),
        defaultTimeout: Duration? = nil,
        reporter: @escaping @Sendable (CallbackViolation) -> Void
    ) {
        self.clock = clock
        self.defaultTimeout = defaultTimeout
        self.report = reporter
    }

    /// Starts the call with `start` (which hands the resumer to the SDK's callbacks) and returns
    /// the first result delivered.
    ///
    /// `start` runs synchronously, and not at all if the task is already cancelled.
    ///
    /// - Throws: the error a callback delivered; `CallbackBridgeError.timedOut` after `timeout`
    ///   (default: the bridge's); `CallbackBridgeError.callbackDropped`; `CancellationError`.
    public func call<Value: Sendable>(
        _ operation: String,
        timeout: Duration? = nil,
        _ start: (CallbackResumer<Value>) -> Void
    ) async throws -> Value {
        let slot = CallbackSlot<Value>(operation: operation, report: report)
        let limit = timeout ?? defaultTimeout
        let timer = limit.map { limit in
            Task { [clock] in
                do {
                    try await clock.sleep(for: limit)
                } catch {
                    return
                }
                slot.timeOut(after: limit)
            }
        }
        defer { timer?.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                guard slot.install(continuation, timeout: limit) else { return }
                start(CallbackResumer(slot: slot))
            }
        } onCancel: {
            slot.cancel()
        }
    }
}
