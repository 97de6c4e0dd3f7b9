/// What a lifecycle drives: a `SyncSession` (or a test's recorder).
public protocol LifecycleTarget: Sendable {
    /// Puts the connection aside (the app is in the background).
    func suspend() async
    /// Takes it up again (the app is on screen).
    func resume() async
    /// Replaces the connection at once (the network path changed).
    func reconnectNow() async
}

extension SyncSession: LifecycleTarget {}
