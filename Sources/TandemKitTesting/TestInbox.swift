import TandemSynchronization

/// The actions effects have sent to a `TestStore` and not yet asserted, plus a change signal
/// that lets the test wait for "an action arrived" or "an effect finished" without polling.
final class TestInbox<Action: Sendable>: Sendable {
    private struct Contents {
        var actions: [Action] = []
        var generation: UInt64 = 0
        var nextWaiter: UInt64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    }

    private let contents = Locked(Contents())

    /// Every action received and not yet taken, oldest first.
    var actions: [Action] { contents.withLock { $0.actions } }

    /// Appends an action sent by an effect and wakes waiters.
    func append(_ action: Action) {
        let waiters = contents.withLock { contents in
            contents.actions.append(action)
            return Self.advance(&contents)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Wakes waiters without adding an action (an effect finished).
    func signal() {
        let waiters = contents.withLock { Self.advance(&$0) }
        for waiter in waiters { waiter.resume() }
    }

    /// Removes and returns the oldest action.
    func takeFirst() -> Action? {
        contents.withLock { $0.actions.isEmpty ? nil : $0.actions.removeFirst() }
    }

    /// Removes and returns every action.
    func takeAll() -> [Action] {
        contents.withLock { contents in
            defer { contents.actions.removeAll() }
            return contents.actions
        }
    }

    /// Waits until `condition` holds (rechecked on every change) or `timeout` passes on `clock`.
    /// Returns whether the condition held.
    func wait(
        until condition: @escaping @Sendable () -> Bool,
        timeout: Duration,
        clock: any Clock<Duration>
    ) async -> Bool {
        if condition() { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    let generation = self.contents.withLock { $0.generation }
                    if condition() { return true }
                    await self.waitForChange(after: generation)
                }
                return false
            }
            group.addTask {
                try? await clock.sleep(for: timeout)
                return false
            }
            let result = await group.next() ?? false
            group.cancelAll()
            return result
        }
    }

    private func waitForChange(after generation: UInt64) async {
        let token = contents.withLock { contents in
            defer { contents.nextWaiter += 1 }
            return contents.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = contents.withLock { contents in
                    if contents.generation != generation || Task.isCancelled { return true }
                    contents.waiters[token] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = contents.withLock { $0.waiters.removeValue(forKey: token) }
            waiter?.resume()
        }
    }

    private static func advance(_ contents: inout Contents) -> [CheckedContinuation<Void, Never>] {
        contents.generation &+= 1
        defer { contents.waiters.removeAll() }
        return Array(contents.waiters.values)
    }
}
