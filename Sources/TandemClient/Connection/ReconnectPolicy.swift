import TandemProtocol

/// When and how soon to reconnect: the close-code rules of the protocol plus exponential backoff
/// with full jitter, reset once a connection has been stable.
public struct ReconnectPolicy: Sendable, Equatable {
    /// The wait before each attempt (`Backoff`: exponential, full jitter by default).
    public var backoff: Backoff
    /// A connection that lasted at least this long resets the attempt count.
    public var stableAfter: Duration
    /// Give up after this many consecutive failed attempts; `nil` retries forever.
    public var maxAttempts: Int?

    /// The default waits: 0.25 s doubling to 30 s, full jitter.
    public static let defaultBackoff = Backoff(base: .milliseconds(250), cap: .seconds(30))

    /// Creates a policy; defaults: `defaultBackoff`, stable after 10 s, no limit.
    public init(backoff: Backoff = ReconnectPolicy.defaultBackoff, stableAfter: Duration = .seconds(10), maxAttempts: Int? = nil) {
        self.backoff = backoff
        self.stableAfter = stableAfter
        self.maxAttempts = maxAttempts
    }

    /// Decides what follows a lost connection.
    /// - Parameters:
    ///   - code: the close code, `nil` when the transport failed without one (network loss,
    ///     heartbeat timeout).
    ///   - attempt: the number of the attempt that would come next (1 for the first retry).
    ///   - freshTokenAvailable: whether the token provider can supply a new token (matters for 4001).
    ///   - previousCode: the close code of the attempt before, to stop when a fresh token was
    ///     refused too.
    public func decide(
        code: CloseCode?, attempt: Int, freshTokenAvailable: Bool, previousCode: CloseCode? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> ReconnectDecision {
        if let code {
            switch code.reconnectPolicy {
            case .stop:
                return .stop(.refused(code))
            case .resumeWithFreshToken:
                guard freshTokenAvailable, previousCode != .badToken else { return .stop(.unauthorized) }
            case .resume:
                break
            }
        }
        if let maxAttempts, attempt > maxAttempts { return .stop(.gaveUp(attempts: attempt - 1)) }
        return .retry(attempt: attempt, delay: backoff.delay(afterFailures: attempt, using: &generator))
    }
}
