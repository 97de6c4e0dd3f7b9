/// Ties adapted services to the app lifecycle: starts them at launch and resumes them in the
/// foreground in declared order; pauses them in the background and tears them down at logout in
/// reverse order, so a service never outlives one it depends on.
///
/// Events are handled one at a time in the order they arrive (an event waits until the previous
/// one has finished with every participant). Repeated `foreground`, `background` or `logout`
/// events are ignored; events that make no sense in the current phase throw.
public actor ServiceLifecycle {
    private let participants: [any LifecycleParticipant]
    /// The current phase.
    public private(set) var phase: LifecyclePhase = .idle
    private var busy = false
    private var queued: [CheckedContinuation<Void, Never>] = []

    /// Creates a lifecycle for `participants`, in dependency order (dependencies first).
    public init(_ participants: [any LifecycleParticipant]) {
        self.participants = participants
    }

    /// Carries out `event` on every participant.
    ///
    /// - Throws: `LifecycleError.invalidEvent` for `foreground`/`background` before launch or a
    ///   second `launch`; `LifecycleError.startFailed` when a participant's `start` throws (those
    ///   already started are torn down in reverse order and the phase stays `.idle`).
    public func handle(_ event: LifecycleEvent) async throws(LifecycleError) {
        await acquire()
        defer { release() }
        switch (event, phase) {
        case (.launch, .idle):
            try await launch()
        case (.foreground, .background):
            for participant in participants { await participant.resume() }
            phase = .active
        case (.background, .active):
            for participant in participants.reversed() { await participant.pause() }
            phase = .background
        case (.logout, .active), (.logout, .background):
            for participant in participants.reversed() { await participant.tearDown() }
            phase = .idle
        case (.foreground, .active), (.background, .background), (.logout, .idle):
            return
        case (.launch, _), (.foreground, .idle), (.background, .idle):
            throw .invalidEvent(event, phase: phase)
        }
    }

    private func launch() async throws(LifecycleError) {
        for (index, participant) in participants.enumerated() {
            do {
                try await participant.start()
            } catch {
                for started in participants[..<index].reversed() { await started.tearDown() }
                throw .startFailed(service: participant.name, reason: String(describing: error))
            }
        }
        phase = .active
    }

    private func acquire() async {
        if busy {
            await withCheckedContinuation { queued.append($0) }
        } else {
            busy = true
        }
    }

    private func release() {
        if queued.isEmpty {
            busy = false
        } else {
            queued.removeFirst().resume()
        }
    }
}
