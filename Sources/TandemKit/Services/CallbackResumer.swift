import TandemSynchronization

/// The handle a callback-style API's completion closures use to hand their result to
/// `CallbackBridge.call`; the first result wins.
///
/// Thread-safe and idempotent: later results are not delivered but reported as a
/// `CallbackViolation`. If the API releases the handle without using it, the waiting caller gets
/// `CallbackBridgeError.callbackDropped` instead of hanging forever.
public final class CallbackResumer<Value: Sendable>: Sendable {
    let slot: CallbackSlot<Value>

    init(slot: CallbackSlot<Value>) { self.slot = slot }

    /// Delivers a success.
    public func resume(returning value: Value) { slot.deliver(.success(value)) }

    /// Delivers a failure (typically already mapped to a domain error).
    public func resume(throwing error: any Error) { slot.deliver(.failure(error)) }

    /// Delivers `result`.
    public func resume(with result: Result<Value, any Error>) { slot.deliver(result) }

    deinit { slot.dropped() }
}

extension CallbackResumer where Value == Void {
    /// Delivers a success for an API whose success callback carries no value.
    public func resume() { slot.deliver(.success(())) }
}

/// The single-resumption state shared by a `CallbackResumer`, the time-out timer and the
/// cancellation handler of one `CallbackBridge.call`.
final class CallbackSlot<Value: Sendable>: Sendable {
    enum Ending {
        case callback
        case timeout
        case cancellation
        case dropped
    }

    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var ending: Ending?
    }

    private let state = Locked(State())
    private let operation: String
    private let report: @Sendable (CallbackViolation) -> Void

    init(operation: String, report: @escaping @Sendable (CallbackViolation) -> Void) {
        self.operation = operation
        self.report = report
    }

    /// Stores the caller's continuation; returns false (after resuming it with the matching
    /// error) if the call was cancelled or timed out before it got here.
    func install(_ continuation: CheckedContinuation<Value, any Error>, timeout: Duration?) -> Bool {
        let early = state.withLock { state -> Ending? in
            if let ending = state.ending { return ending }
            state.continuation = continuation
            return nil
        }
        switch early {
        case nil:
            return true
        case .timeout:
            continuation.resume(throwing: CallbackBridgeError.timedOut(operation: operation, after: timeout ?? .zero))
        case .cancellation, .callback, .dropped:
            continuation.resume(throwing: CancellationError())
        }
        return false
    }

    func deliver(_ result: Result<Value, any Error>) {
        switch end(.callback) {
        case .resume(let continuation):
            continuation.resume(with: result)
        case .alreadyEnded(let ending):
            let kind: CallbackViolation.Kind
            switch ending {
            case .callback, .dropped: kind = .duplicateCallback
            case .timeout: kind = .callbackAfterTimeout
            case .cancellation: kind = .callbackAfterCancellation
            }
            report(CallbackViolation(operation: operation, kind: kind))
        }
    }

    func timeOut(after duration: Duration) {
        if case .resume(let continuation) = end(.timeout) {
            continuation.resume(throwing: CallbackBridgeError.timedOut(operation: operation, after: duration))
        }
    }

    func cancel() {
        if case .resume(let continuation) = end(.cancellation) {
            continuation.resume(throwing: CancellationError())
        }
    }

    func dropped() {
        if case .resume(let continuation) = end(.dropped) {
            report(CallbackViolation(operation: operation, kind: .callbackDropped))
            continuation.resume(throwing: CallbackBridgeError.callbackDropped(operation: operation))
        }
    }

    private enum EndResult {
        case resume(CheckedContinuation<Value, any Error>)
        case alreadyEnded(Ending)
    }

    /// Records the first ending; only that one gets the continuation. An ending before the
    /// continuation is installed (cancellation) is remembered so `install` can honour it.
    private func end(_ ending: Ending) -> EndResult {
        state.withLock { state -> EndResult in
            if let previous = state.ending { return .alreadyEnded(previous) }
            state.ending = ending
            guard let continuation = state.continuation else { return .alreadyEnded(ending) }
            state.continuation = nil
            return .resume(continuation)
        }
    }
}
