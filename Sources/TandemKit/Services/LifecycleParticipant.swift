/// A service (usually an SDK adapter) whose life follows the app's: started at launch, paused in
/// the background, resumed in the foreground, torn down at logout.
///
/// `ServiceLifecycle` calls these in the declared order (pause and teardown in reverse) and never
/// concurrently for one participant. Only `start` is required.
public protocol LifecycleParticipant: Sendable {
    /// The name used in errors, e.g. "IM".
    var name: String { get }
    /// Initialises the service; throwing aborts the launch and tears down those already started.
    func start() async throws
    /// The app came back to the foreground.
    func resume() async
    /// The app went to the background.
    func pause() async
    /// The user logged out (or the app ends): release everything `start` acquired.
    func tearDown() async
}

extension LifecycleParticipant {
    /// Does nothing: services without foreground work need not implement it.
    public func resume() async {}
    /// Does nothing: services without background work need not implement it.
    public func pause() async {}
    /// Does nothing: services holding no resources need not implement it.
    public func tearDown() async {}
}
