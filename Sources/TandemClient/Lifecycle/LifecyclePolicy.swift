/// What a session does about the app's lifecycle and the network, decided from events and the time alone
/// (no clock, no session), so every rule is tested by feeding it events:
///
/// - background → suspend once `backgroundGrace` has passed without a foreground;
/// - foreground → resume, when the session was suspended; reconnect, when the grace ran out without a
///   suspend (the app was frozen in the background, its connection likely dead);
/// - a path on other interfaces, or a path that came back → one `reconnectNow` once the path has stayed the
///   same for `pathSettle` (at most `pathMaxDelay` after the first change); none while suspended, none when
///   the path went away (the session's own retries go on), none for the first path reported;
/// - every change of cost or availability → the new `NetworkConditions`.
struct LifecyclePolicy: Sendable {
    /// What the session is asked to do.
    enum Action: Sendable, Equatable {
        case suspend, resume, reconnectNow
        case conditions(NetworkConditions)
    }

    let settings: LifecycleSettings
    private var inBackground = false
    private var suspended = false
    private var suspendAt: Duration?
    private var path: NetworkPath?
    private var firstUnsettledChange: Duration?
    private var reconnectAt: Duration?

    init(settings: LifecycleSettings) {
        self.settings = settings
    }

    /// When `tick(at:)` has something to do next; nil when nothing waits.
    var nextDeadline: Duration? {
        [suspendAt, reconnectAt].compactMap { $0 }.min()
    }

    /// Takes `event`, which happened at `now` (time since any fixed origin).
    mutating func handle(_ event: AppEnvironmentEvent, at now: Duration) -> [Action] {
        switch event {
        case .background:
            guard !inBackground else { return [] }
            inBackground = true
            if !suspended { suspendAt = now + settings.backgroundGrace }
            return []
        case .foreground:
            inBackground = false
            let overdue = suspendAt.map { $0 <= now } ?? false
            suspendAt = nil
            // The grace ran out but no suspend came: the system froze the app in the background (iOS does
            // within seconds), and its connection is most likely dead. Replace it now instead of waiting for
            // the heartbeat to notice.
            if overdue && !suspended { return [.reconnectNow] }
            guard suspended else { return [] }
            suspended = false
            // Resuming connects on whatever path is current: a reconnect waiting for the path is moot.
            reconnectAt = nil
            firstUnsettledChange = nil
            return [.resume]
        case .path(let new):
            let old = path
            path = new
            var actions: [Action] = []
            if old.map(NetworkConditions.init) != NetworkConditions(new) { actions.append(.conditions(NetworkConditions(new))) }
            guard let old, new.replaces(old) else { return actions }
            guard new.isSatisfied else {
                firstUnsettledChange = nil
                reconnectAt = nil
                return actions
            }
            let first = firstUnsettledChange ?? now
            firstUnsettledChange = first
            reconnectAt = min(now + settings.pathSettle, first + settings.pathMaxDelay)
            return actions
        }
    }

    /// What is due at `now`.
    mutating func tick(at now: Duration) -> [Action] {
        var actions: [Action] = []
        if let due = suspendAt, due <= now {
            suspendAt = nil
            suspended = true
            actions.append(.suspend)
        }
        if let due = reconnectAt, due <= now {
            reconnectAt = nil
            firstUnsettledChange = nil
            if !suspended { actions.append(.reconnectNow) }
        }
        return actions
    }
}
