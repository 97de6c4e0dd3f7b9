import Testing
import TandemKit

/// A sync connection's lifecycle: idle → connecting → handshaking → connected; a lost connection
/// reconnects with a growing attempt number up to a limit; `close` ends it from any open state.
enum ConnectionState: Hashable, Sendable {
    case idle, connecting, handshaking, connected
    case reconnecting(attempt: Int)
    case closed
}

enum ConnectionEvent: Hashable, Sendable {
    case connect, transportOpened, transportFailed, handshakeAccepted, handshakeRejected, connectionLost, close
}

enum ConnectionLifecycle {
    static let maxAttempts = 3

    static func table() -> TransitionTable<ConnectionState, ConnectionEvent> {
        typealias T = Transition<ConnectionState, ConnectionEvent>
        let reconnecting = TransitionMatcher<ConnectionState>.kind("reconnecting") { if case .reconnecting = $0 { true } else { false } }
        let belowLimit = TransitionGuard<ConnectionState, ConnectionEvent>("attempt < \(maxAttempts)") { state, _ in
            if case let .reconnecting(attempt) = state { attempt < maxAttempts } else { false }
        }
        return TransitionTable([
            T(from: .idle, on: .connect, to: .connecting),
            T(from: .connecting, on: .transportOpened, to: .handshaking),
            T(from: .oneOf([.connecting, .handshaking, .connected]), on: .transportFailed, to: .state(.reconnecting(attempt: 1))),
            T(from: .handshaking, on: .handshakeAccepted, to: .connected),
            T(from: .handshaking, on: .handshakeRejected, to: .closed),
            T(from: .oneOf([.handshaking, .connected]), on: .connectionLost, to: .state(.reconnecting(attempt: 1))),
            T(from: reconnecting, on: .transportOpened, to: .state(.handshaking)),
            T(from: reconnecting, on: .transportFailed, to: .computed("reconnecting") { state, _ in
                if case let .reconnecting(attempt) = state { return .reconnecting(attempt: attempt + 1) }
                return state
            }, guard: belowLimit),
            T(from: reconnecting, on: .transportFailed, to: .state(.closed)),
            T(from: .kind("open") { $0 != .closed }, on: .close, to: .state(.closed)),
        ])
    }
}

@Suite struct StateMachineConnectionExampleTests {
    typealias Machine = StateMachine<ConnectionState, ConnectionEvent>

    @Test func connectsReconnectsAndCloses() throws {
        var machine = Machine(initial: .idle, table: ConnectionLifecycle.table())
        for event in [ConnectionEvent.connect, .transportOpened, .handshakeAccepted] { try machine.handle(event) }
        #expect(machine.state == .connected)
        try machine.handle(.connectionLost)
        #expect(machine.state == .reconnecting(attempt: 1))
        try machine.handle(.transportFailed)
        #expect(machine.state == .reconnecting(attempt: 2))
        try machine.handle(.transportOpened)
        try machine.handle(.handshakeAccepted)
        #expect(machine.state == .connected)
        try machine.handle(.close)
        #expect(machine.state == .closed)
    }

    @Test func givesUpAfterAttemptLimit() throws {
        var machine = Machine(initial: .reconnecting(attempt: 1), table: ConnectionLifecycle.table())
        try machine.handle(.transportFailed)
        try machine.handle(.transportFailed)
        #expect(machine.state == .reconnecting(attempt: 3))
        try machine.handle(.transportFailed)
        #expect(machine.state == .closed)
    }

    @Test(arguments: [
        (ConnectionState.idle, ConnectionEvent.handshakeAccepted),
        (.connecting, .handshakeAccepted),
        (.connected, .handshakeAccepted),
        (.connected, .connect),
        (.closed, .close),
        (.closed, .connect),
        (.reconnecting(attempt: 2), .handshakeAccepted),
    ])
    func refusesInvalidTransitions(state: ConnectionState, event: ConnectionEvent) {
        var machine = Machine(initial: state, table: ConnectionLifecycle.table())
        #expect(throws: StateMachineError<ConnectionState, ConnectionEvent>.invalidTransition(from: state, event: event)) {
            try machine.handle(event)
        }
    }

    @Test func exportsLifecycleDOT() {
        let dot = ConnectionLifecycle.table().dot(name: "Connection")
        #expect(dot.contains("\"reconnecting\" -> \"reconnecting\" [label=\"transportFailed [attempt < 3]\"];"))
        #expect(dot.contains("\"open\" -> \"closed\" [label=\"close\"];"))
    }
}
