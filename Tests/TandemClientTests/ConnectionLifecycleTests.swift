import Testing
import TandemProtocol
@testable import TandemClient

@Suite struct ConnectionLifecycleTests {
    static let second: Int64 = 1_000_000_000

    static func connected(_ lifecycle: inout ConnectionLifecycle, at now: Int64) throws {
        if lifecycle.state == .idle { try lifecycle.connect() } else { try lifecycle.retry() }
        try lifecycle.transportOpened()
        try lifecycle.welcomed(now: now)
    }

    @Test func walksThroughTheHappyPath() throws {
        var lifecycle = ConnectionLifecycle()
        #expect(lifecycle.state == .idle)
        try lifecycle.connect()
        #expect(lifecycle.state == .connecting)
        try lifecycle.transportOpened()
        #expect(lifecycle.state == .handshaking)
        try lifecycle.welcomed(now: 0)
        #expect(lifecycle.state == .connected)
        try lifecycle.close()
        #expect(lifecycle.state == .closed(.closedByApp))
    }

    @Test func lostConnectionRetriesWithGrowingCeilingAndResetsAfterAStableConnection() throws {
        let backoff = Backoff(base: .seconds(1), cap: .seconds(100))
        var lifecycle = ConnectionLifecycle(policy: ReconnectPolicy(backoff: backoff, stableAfter: .seconds(10)))
        var random = SplitMix(seed: 1)
        try Self.connected(&lifecycle, at: 0)
        var ceilings: [Duration] = []
        for attempt in 1...4 {
            let state = try lifecycle.connectionLost(code: nil, now: Self.second, using: &random)
            guard case .reconnecting(let number, let delay) = state else {
                Issue.record("expected reconnecting, got \(state)")
                return
            }
            #expect(number == attempt)
            #expect(delay >= .zero && delay <= backoff.bound(afterFailures: attempt))
            ceilings.append(backoff.bound(afterFailures: attempt))
            try lifecycle.retry()
            #expect(lifecycle.state == .connecting)
        }
        #expect(ceilings == [1, 2, 4, 8].map { Duration.seconds($0) })
        // Connected briefly: the count goes on.
        try lifecycle.transportOpened()
        try lifecycle.welcomed(now: 2 * Self.second)
        #expect(try lifecycle.connectionLost(code: .internalError, now: 3 * Self.second, using: &random).attempt == 5)
        // Connected for 10 s: the next loss starts over at attempt 1.
        try lifecycle.retry()
        try lifecycle.transportOpened()
        try lifecycle.welcomed(now: 4 * Self.second)
        #expect(try lifecycle.connectionLost(code: .goingAway, now: 14 * Self.second, using: &random).attempt == 1)
    }

    @Test(arguments: [CloseCode.forbidden, .replaced])
    func codesThatForbidRetryingClose(code: CloseCode) throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 2)
        try Self.connected(&lifecycle, at: 0)
        try lifecycle.connectionLost(code: code, now: 1, using: &random)
        #expect(lifecycle.state == .closed(.refused(code)))
    }

    @Test(arguments: [CloseCode.normal, .goingAway, .internalError, .idleTimeout, .sendQueueOverflow, .helloTimeout, .roomFull, .rateLimited, .messageTooBig])
    func otherCodesRetry(code: CloseCode) throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 3)
        try Self.connected(&lifecycle, at: 0)
        #expect(try lifecycle.connectionLost(code: code, now: 1, using: &random).attempt == 1)
    }

    @Test func badTokenRetriesOnceWithAFreshTokenThenStops() throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 4)
        try Self.connected(&lifecycle, at: 0)
        #expect(try lifecycle.connectionLost(code: .badToken, now: 1, freshTokenAvailable: true, using: &random).attempt == 1)
        try lifecycle.retry()
        try lifecycle.transportOpened()
        try lifecycle.connectionLost(code: .badToken, now: 2, freshTokenAvailable: true, using: &random)
        #expect(lifecycle.state == .closed(.unauthorized))
    }

    @Test func badTokenWithoutAFreshTokenStops() throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 5)
        try Self.connected(&lifecycle, at: 0)
        try lifecycle.connectionLost(code: .badToken, now: 1, freshTokenAvailable: false, using: &random)
        #expect(lifecycle.state == .closed(.unauthorized))
    }

    @Test func attemptLimitGivesUp() throws {
        var lifecycle = ConnectionLifecycle(policy: ReconnectPolicy(maxAttempts: 2))
        var random = SplitMix(seed: 6)
        try lifecycle.connect()
        try lifecycle.connectionLost(code: nil, now: 0, using: &random)
        try lifecycle.retry()
        try lifecycle.connectionLost(code: nil, now: 0, using: &random)
        try lifecycle.retry()
        try lifecycle.connectionLost(code: nil, now: 0, using: &random)
        #expect(lifecycle.state == .closed(.gaveUp(attempts: 2)))
    }

    @Test(arguments: [
        (ConnectionState.idle, ConnectionEvent.welcomed),
        (.idle, .retry),
        (.connecting, .welcomed),
        (.connected, .connect),
        (.connected, .transportOpened),
        (.reconnecting(attempt: 1, delay: .zero), .welcomed),
        (.closed(.closedByApp), .connect),
        (.closed(.closedByApp), .close),
        (.idle, .suspend),
        (.suspended, .suspend),
        (.suspended, .welcomed),
        (.suspended, .retry),
        (.connected, .resume),
        (.closed(.closedByApp), .resume),
    ])
    func impossibleTransitionsAreRefused(state: ConnectionState, event: ConnectionEvent) throws {
        var lifecycle = ConnectionLifecycle()
        try Self.drive(&lifecycle, to: state)
        #expect(throws: ConnectionLifecycleError.impossible(event: event, state: state)) { try lifecycle.handle(event) }
        #expect(lifecycle.state == state)
    }

    @Test(arguments: [ConnectionState.connecting, .handshaking, .connected, .reconnecting(attempt: 1, delay: .zero)])
    func everyLiveStateSuspendsAndResumesIntoConnectingWithTheBackoffStartedOver(state: ConnectionState) throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 3)
        try Self.drive(&lifecycle, to: state)
        try lifecycle.suspend()
        #expect(lifecycle.state == .suspended)
        #expect(throws: ConnectionLifecycleError.self) { try lifecycle.connectionLost(code: nil, now: 0, using: &random) }
        try lifecycle.resume()
        #expect(lifecycle.state == .connecting)
        try lifecycle.connectionLost(code: nil, now: 0, using: &random)
        #expect(lifecycle.state.attempt == 1)
        try lifecycle.suspend()
        try lifecycle.close()
        #expect(lifecycle.state == .closed(.closedByApp))
    }

    @Test func lossWhileIdleOrClosedIsRefused() throws {
        var lifecycle = ConnectionLifecycle()
        var random = SplitMix(seed: 7)
        #expect(throws: ConnectionLifecycleError.self) { try lifecycle.connectionLost(code: nil, now: 0, using: &random) }
        try lifecycle.connect()
        try lifecycle.close()
        #expect(throws: ConnectionLifecycleError.self) { try lifecycle.connectionLost(code: nil, now: 0, using: &random) }
    }

    @Test func errorsExplainThemselves() {
        let error = ConnectionLifecycleError.impossible(event: .welcomed, state: .idle)
        #expect(error.description.contains("impossible in state idle"))
        #expect(ConnectionCloseReason.unauthorized.description.contains("fresh token"))
    }

    static func drive(_ lifecycle: inout ConnectionLifecycle, to state: ConnectionState) throws {
        switch state {
        case .idle: return
        case .connecting: try lifecycle.connect()
        case .connected: try connected(&lifecycle, at: 0)
        case .reconnecting:
            try lifecycle.connect()
            try lifecycle.handle(.lost(.retry(attempt: 1, delay: .zero)))
        case .closed:
            try lifecycle.connect()
            try lifecycle.close()
        case .handshaking:
            try lifecycle.connect()
            try lifecycle.transportOpened()
        case .suspended:
            try lifecycle.connect()
            try lifecycle.suspend()
        }
    }
}

extension ConnectionState {
    /// The attempt number while reconnecting (tests).
    var attempt: Int? { if case .reconnecting(let attempt, _) = self { attempt } else { nil } }
}
