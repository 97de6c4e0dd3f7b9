import Testing
@testable import TandemKit

@Suite struct StateMachineTests {
    enum Light: Hashable, Sendable { case red, green, yellow, off }
    enum Signal: Hashable, Sendable { case next, power }

    static func lightTable(log: FlowLog<String>? = nil, allowYellow: Bool = true) -> TransitionTable<Light, Signal> {
        TransitionTable<Light, Signal>([
            Transition(from: .red, on: .next, to: .green) { _ in log?.append("action red->green") },
            Transition(from: .green, on: .next, to: .yellow, guard: TransitionGuard("yellow allowed") { _, _ in allowYellow }),
            Transition(from: .yellow, on: .next, to: .red),
            Transition(from: .kind("on") { $0 != .off }, on: .power, to: .state(.off)),
        ])
        .onExit(.exactly(.red)) { change in log?.append("exit \(change.from)") }
        .onEntry(.exactly(.green)) { change in log?.append("enter \(change.to) via \(change.event)") }
        .onEntry(.any) { change in log?.append("enter any \(change.to)") }
    }

    @Test func followsDeclaredTransitions() throws {
        var machine = StateMachine(initial: Light.red, table: Self.lightTable())
        #expect(try machine.handle(.next) == .green)
        #expect(try machine.handle(.next) == .yellow)
        #expect(try machine.handle(.next) == .red)
        #expect(machine.state == .red)
    }

    @Test func refusesUndeclaredEventWithTypedErrorAndKeepsState() {
        var machine = StateMachine(initial: Light.off, table: Self.lightTable())
        #expect(throws: StateMachineError<Light, Signal>.invalidTransition(from: .off, event: .next)) {
            try machine.handle(.next)
        }
        #expect(machine.state == .off)
        #expect(!machine.canHandle(.power))
    }

    @Test func errorDescriptionNamesStateAndEvent() {
        let invalid = StateMachineError<Light, Signal>.invalidTransition(from: .off, event: .next)
        #expect(invalid.description.contains("'off'"))
        #expect(invalid.description.contains("'next'"))
        let guarded = StateMachineError<Light, Signal>.guardRejected(from: .green, event: .next, guards: ["yellow allowed"])
        #expect(guarded.description.contains("'green'"))
        #expect(guarded.description.contains("'yellow allowed'"))
    }

    @Test func failingGuardThrowsDistinctErrorAndRunsNoAction() {
        let log = FlowLog<String>()
        var machine = StateMachine(initial: Light.green, table: Self.lightTable(log: log, allowYellow: false))
        #expect(throws: StateMachineError<Light, Signal>.guardRejected(from: .green, event: .next, guards: ["yellow allowed"])) {
            try machine.handle(.next)
        }
        #expect(machine.state == .green)
        #expect(log.all.isEmpty)
        #expect(!machine.canHandle(.next))
    }

    @Test func firstTransitionWhoseGuardHoldsWins() throws {
        let table = TransitionTable<Light, Signal>([
            Transition(from: .red, on: .next, to: .green, guard: TransitionGuard("never") { _, _ in false }),
            Transition(from: .red, on: .next, to: .yellow),
            Transition(from: .red, on: .next, to: .off),
        ])
        var machine = StateMachine(initial: .red, table: table)
        #expect(try machine.handle(.next) == .yellow)
    }

    @Test func runsExitThenTransitionThenEntryActionsInDeclarationOrder() throws {
        let log = FlowLog<String>()
        var machine = StateMachine(initial: Light.red, table: Self.lightTable(log: log))
        try machine.handle(.next)
        #expect(log.all == ["exit red", "action red->green", "enter green via next", "enter any green"])
    }

    @Test func internalTransitionSkipsEntryAndExit() throws {
        let log = FlowLog<String>()
        let table = TransitionTable<Light, Signal>([
            Transition(from: .exactly(.red), on: .next, to: .state(.red), internal: true) { _ in log.append("stay") },
            Transition(from: .exactly(.red), on: .power, to: .state(.red)) { _ in log.append("reenter") },
        ])
        .onExit(.any) { _ in log.append("exit") }
        .onEntry(.any) { _ in log.append("entry") }
        var machine = StateMachine(initial: .red, table: table)
        try machine.handle(.next)
        try machine.handle(.power)
        #expect(log.all == ["stay", "exit", "reenter", "entry"])
    }

    @Test func nextStateDoesNotMutateOrRunActions() throws {
        let log = FlowLog<String>()
        let machine = StateMachine(initial: Light.red, table: Self.lightTable(log: log))
        #expect(try machine.nextState(on: .next) == .green)
        #expect(machine.state == .red)
        #expect(log.all.isEmpty)
    }

    @Test func valueSemanticsAndEquality() throws {
        let table = Self.lightTable()
        var first = StateMachine(initial: Light.red, table: table)
        let copy = first
        try first.handle(.next)
        #expect(copy.state == .red)
        #expect(first != copy)
        var second = copy
        try second.handle(.next)
        #expect(first == second)
        // Same states but a different declaration are not equal.
        #expect(StateMachine(initial: Light.red, table: Self.lightTable()) != StateMachine(initial: Light.red, table: table))
    }

    @Test func oneOfMatcherSelectsListedStates() throws {
        let table = TransitionTable<Light, Signal>([
            Transition(from: .oneOf([.red, .yellow]), on: .next, to: .state(.green)),
        ])
        #expect(try StateMachine(initial: .red, table: table).nextState(on: .next) == .green)
        #expect(try StateMachine(initial: .yellow, table: table).nextState(on: .next) == .green)
        #expect(!StateMachine(initial: .green, table: table).canHandle(.next))
        #expect(table.transitions[0].from.name == "red|yellow")
    }

    @Test func exportsDeterministicDOT() {
        let machine = StateMachine(initial: Light.red, table: Self.lightTable())
        let expected = """
        digraph "Traffic \\"light\\"" {
          rankdir=LR;
          node [shape=box, style=rounded];
          "__start" [shape=point, label=""];
          "__start" -> "red";
          "red";
          "green";
          "yellow";
          "on";
          "off";
          "red" -> "green" [label="next"];
          "green" -> "yellow" [label="next [yellow allowed]"];
          "yellow" -> "red" [label="next"];
          "on" -> "off" [label="power"];
        }

        """
        #expect(machine.dot(name: "Traffic \"light\"") == expected)
        #expect(machine.dot(name: "Traffic \"light\"") == machine.dot(name: "Traffic \"light\""))
    }

    @Test func dotMarksInternalTransitionsDashedAndOmitsStartWithoutInitial() {
        let table = TransitionTable<Light, Signal>([
            Transition(from: .exactly(.red), on: .next, to: .state(.red), internal: true),
        ])
        #expect(table.dot(name: "t") == """
        digraph "t" {
          rankdir=LR;
          node [shape=box, style=rounded];
          "red";
          "red" -> "red" [label="next", style=dashed];
        }

        """)
    }
}
