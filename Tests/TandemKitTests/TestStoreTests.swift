import Testing
import TandemKit
import TandemKitTesting

@Suite struct TestStoreTests {
    /// `increment` starts an effect that sends `add(10)`; `noop` starts one that waits on `gate`.
    static func reducer(gate: TestGate = TestGate()) -> Store<Counter, CounterAction>.Reducer {
        counterReducer { action in
            switch action {
            case .increment: .run { send in send(.add(10)) }
            case .noop: .run(id: "wait") { send in
                await gate.wait()
                send(.record("gate opened"))
            }
            case .record("echo"): .send(.record("echoed"))
            default: .none
            }
        }
    }

    static func text(of issue: Issue) -> String {
        issue.comments.map(\.rawValue).joined(separator: "\n")
    }

    @Test func passesWhenEveryChangeAndActionIsAsserted() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.increment) { $0.count = 1 }
        await store.receive(.add(10)) { $0.count = 11 }
        await store.send(.record("echo")) { $0.log = ["echo"] }
        await store.receive(.record("echoed")) { $0.log = ["echo", "echoed"] }
        await store.finish()
        #expect(store.state.count == 11)
        #expect(store.runningEffectCount == 0)
    }

    @Test func aWrongExpectationIsRecordedWithALineDiff() async {
        let store = TestStore(initialState: Counter(), reducer: counterReducer())
        await withKnownIssue {
            await store.send(.add(2)) { $0.count = 3 }
        } matching: { issue in
            let text = Self.text(of: issue)
            return text.contains("− ") && text.contains("+ ") && text.contains("3") && text.contains("2")
        }
        #expect(store.state.count == 2, "the actual change is applied even when the assertion fails")
    }

    @Test func anUnassertedChangeFailsInExhaustiveMode() async {
        let store = TestStore(initialState: Counter(), reducer: counterReducer())
        await withKnownIssue {
            await store.send(.record("x"))
        } matching: { Self.text(of: $0).contains("differs from the expectation") }
    }

    @Test func anExpectationThatForgetsAFieldFails() async {
        let store = TestStore(initialState: Counter(), reducer: counterReducer())
        await withKnownIssue {
            await store.send(.child(.set(1))) { $0.count = 0 }
        }
    }

    @Test func receivingTheWrongActionIsRecorded() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.increment) { $0.count = 1 }
        await withKnownIssue {
            await store.receive(.add(5)) { $0.count = 11 }
        } matching: { Self.text(of: $0).contains("unexpected action") }
        await store.finish()
    }

    @Test func receiveTimesOutWhenNoActionArrives() async {
        let store = TestStore(initialState: Counter(), reducer: counterReducer(), clock: ImmediateClock())
        await withKnownIssue {
            await store.receive(.increment)
        } matching: { Self.text(of: $0).contains("no action arrived") }
    }

    @Test func finishReportsUnassertedActions() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.record("echo")) { $0.log = ["echo"] }
        await withKnownIssue {
            await store.finish()
        } matching: { Self.text(of: $0).contains("not asserted") }
        store.skipReceivedActions()
        #expect(store.state.log == ["echo", "echoed"])
    }

    @Test func finishReportsAndCancelsEffectsStillRunning() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer(), clock: ImmediateClock())
        await store.send(.noop)
        #expect(store.runningEffectCount == 1)
        await withKnownIssue {
            await store.finish()
        } matching: { Self.text(of: $0).contains("still running") }
        #expect(store.runningEffectCount == 0)
    }

    @Test func finishWaitsForEffectsThatEndInTime() async {
        let gate = TestGate()
        let store = TestStore(initialState: Counter(), reducer: Self.reducer(gate: gate))
        await store.send(.noop)
        gate.open()
        await store.receive(.record("gate opened")) { $0.log = ["gate opened"] }
        await store.finish()
    }

    @Test func releasingAStoreWithUnassertedActionsIsAFailure() async {
        await withKnownIssue {
            let store = TestStore(initialState: Counter(), reducer: Self.reducer())
            await store.send(.record("echo")) { $0.log = ["echo"] }
        } matching: { Self.text(of: $0).contains("not asserted") }
    }

    @Test func releasingAStoreWithARunningEffectIsAFailure() async {
        await withKnownIssue {
            let store = TestStore(initialState: Counter(), reducer: Self.reducer())
            await store.send(.noop)
        } matching: { Self.text(of: $0).contains("still running") }
    }

    @Test func sendingWhileActionsAreUnassertedIsAFailure() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.record("echo")) { $0.log = ["echo"] }
        await withKnownIssue {
            await store.send(.add(1)) { $0.count = 1 }
        } matching: { Self.text(of: $0).contains("unasserted") }
        store.skipReceivedActions()
    }

    @Test func assertNoPendingActionsReportsLeftovers() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.record("echo")) { $0.log = ["echo"] }
        withKnownIssue {
            store.assertNoPendingActions()
        }
        #expect(store.pendingActions == [.record("echoed")])
        store.skipReceivedActions()
        store.assertNoPendingActions()
    }

    @Test func cancelledEffectsAreNoLongerPending() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        await store.send(.noop)
        store.cancelEffects()
        #expect(store.runningEffectCount == 0)
    }

    // MARK: Non-exhaustive

    @Test func nonExhaustiveChecksOnlyWhatTheClosureSets() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer())
        store.exhaustivity = .off
        await store.send(.record("echo"))
        await store.send(.increment) { $0.count = 1 }
        await store.receive(.add(10)) { $0.count = 11 }
        #expect(store.state.log == ["echo", "echoed"], "the skipped action was still reduced")
        // Leftover actions and effects are not failures in this mode.
        await store.send(.noop)
    }

    @Test func nonExhaustiveStillCatchesAWrongValue() async {
        let store = TestStore(initialState: Counter(), reducer: counterReducer())
        store.exhaustivity = .off
        await withKnownIssue {
            await store.send(.add(2)) { $0.count = 5 }
        }
    }

    @Test func nonExhaustiveReceiveFailsWhenTheActionNeverComes() async {
        let store = TestStore(initialState: Counter(), reducer: Self.reducer(), clock: ImmediateClock())
        store.exhaustivity = .off
        await store.send(.record("echo"))
        await withKnownIssue {
            await store.receive(.add(99))
        } matching: { Self.text(of: $0).contains("add(99)") }
    }
}
