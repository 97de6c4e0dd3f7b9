/// How a `Store` reaches its root: directly, or through a projection of the root's state and an
/// embedding of its own actions into the root's actions.
///
/// A scope of a scope composes both functions once, at creation, onto the root — there is never a
/// chain of stores forwarding to each other, so a dispatch through any depth is one embedding call
/// plus one root dispatch. Subclasses are immutable, hence the unchecked conformance.
@usableFromInline
class StoreBackend<State: Sendable, Action: Sendable>: @unchecked Sendable {
    var state: State { fatalError("abstract") }
    var runningEffectCount: Int { fatalError("abstract") }
    var observerCount: Int { fatalError("abstract") }
    func send(_ action: Action) { fatalError("abstract") }
    func observe(_ body: @escaping @Sendable (State) -> Void) -> ObservationToken { fatalError("abstract") }
    func values<Value: Equatable & Sendable>(_ transform: @escaping @Sendable (State) -> Value) -> AsyncStream<Value> {
        fatalError("abstract")
    }
    @usableFromInline
    func scope<ChildState: Sendable, ChildAction: Sendable>(
        project: @escaping @Sendable (State) -> ChildState,
        embed: @escaping @Sendable (ChildAction) -> Action
    ) -> StoreBackend<ChildState, ChildAction> {
        fatalError("abstract")
    }
    /// Called when the `Store` owning this backend is released.
    func storeReleased() {}
}

/// The backend of a root store: it owns the core and closes it when the root store goes away.
@usableFromInline
final class RootBackend<State: Sendable, Action: Sendable>: StoreBackend<State, Action>, @unchecked Sendable {
    let core: StoreCore<State, Action>

    @usableFromInline
    init(core: StoreCore<State, Action>) {
        self.core = core
    }

    override var state: State { core.state }
    override var runningEffectCount: Int { core.runningEffectCount }
    override var observerCount: Int { core.observerCount }
    override func send(_ action: Action) { core.send(action) }
    override func observe(_ body: @escaping @Sendable (State) -> Void) -> ObservationToken { core.observe(body) }
    override func values<Value: Equatable & Sendable>(_ transform: @escaping @Sendable (State) -> Value) -> AsyncStream<Value> {
        core.values(transform)
    }
    @usableFromInline
    override func scope<ChildState: Sendable, ChildAction: Sendable>(
        project: @escaping @Sendable (State) -> ChildState,
        embed: @escaping @Sendable (ChildAction) -> Action
    ) -> StoreBackend<ChildState, ChildAction> {
        ScopedBackend(core: core, project: project, embed: embed)
    }
    override func storeReleased() { core.close() }
}

/// The backend of a scoped store: a view onto the root core through `project` and `embed`.
///
/// It keeps the core (the state storage) reachable but not the root `Store`: when the root store
/// is released its core is closed, so sends through the scope are dropped and streams finish.
final class ScopedBackend<RootState: Sendable, RootAction: Sendable, State: Sendable, Action: Sendable>:
    StoreBackend<State, Action>, @unchecked Sendable
{
    let core: StoreCore<RootState, RootAction>
    let project: @Sendable (RootState) -> State
    let embed: @Sendable (Action) -> RootAction

    init(
        core: StoreCore<RootState, RootAction>,
        project: @escaping @Sendable (RootState) -> State,
        embed: @escaping @Sendable (Action) -> RootAction
    ) {
        self.core = core
        self.project = project
        self.embed = embed
    }

    override var state: State { project(core.state) }
    override var runningEffectCount: Int { core.runningEffectCount }
    override var observerCount: Int { core.observerCount }
    override func send(_ action: Action) { core.send(embed(action)) }
    override func observe(_ body: @escaping @Sendable (State) -> Void) -> ObservationToken {
        let project = self.project
        return core.observe { body(project($0)) }
    }
    override func values<Value: Equatable & Sendable>(_ transform: @escaping @Sendable (State) -> Value) -> AsyncStream<Value> {
        let project = self.project
        return core.values { transform(project($0)) }
    }
    override func scope<ChildState: Sendable, ChildAction: Sendable>(
        project childProject: @escaping @Sendable (State) -> ChildState,
        embed childEmbed: @escaping @Sendable (ChildAction) -> Action
    ) -> StoreBackend<ChildState, ChildAction> {
        let project = self.project
        let embed = self.embed
        return ScopedBackend<RootState, RootAction, ChildState, ChildAction>(
            core: core,
            project: { childProject(project($0)) },
            embed: { embed(childEmbed($0)) }
        )
    }
}
