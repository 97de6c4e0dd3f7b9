/// The three update strategies of `RemoteUpdate` as middleware, for apps that keep requests out of
/// their reducers (the articles' store with middleware): the reducer only changes state, and the
/// middleware sees the action and runs the request. The effects are the reducer helpers' own.
public enum RemoteUpdateMiddleware {
    /// Optimistic: the reducer has already changed `slice` for an action `request` recognizes; the
    /// middleware runs the request and, on failure, sends `failed(rollback, error)`, where `rollback`
    /// restores the slice's value from before that action.
    public static func optimistic<State: Sendable, Value: Sendable, Action: Sendable>(
        _ slice: any WritableKeyPath<State, Value> & Sendable,
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable (Action) -> (@Sendable () async throws -> Void)?,
        succeeded: Action? = nil,
        failed: @escaping @Sendable (_ rollback: Rollback<State, Value>, _ error: any Error) -> Action
    ) -> Middleware<State, Action> {
        Middleware(didReduce: { action, old, _ in
            guard let run = request(action) else { return .none }
            let rollback = Rollback(slice: slice, previousValue: old[keyPath: slice])
            return RemoteUpdate.requestEffect(rollback, id: id, request: run, succeeded: succeeded, failed: failed)
        })
    }

    /// Pessimistic: for an action `request` recognizes, runs the request and sends `succeeded(response)`
    /// (for the reducer to apply) or `failed(error)`; the state is not touched until then.
    public static func pessimistic<State: Sendable, Response: Sendable, Action: Sendable>(
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable (Action) -> (@Sendable () async throws -> Response)?,
        succeeded: @escaping @Sendable (Response) -> Action,
        failed: @escaping @Sendable (_ error: any Error) -> Action
    ) -> Middleware<State, Action> {
        Middleware(didReduce: { action, _, _ in
            guard let run = request(action) else { return .none }
            return RemoteUpdate.pessimistic(id: id, request: run, succeeded: succeeded, failed: failed)
        })
    }

    /// Force sync: for an action `request` recognizes, runs the request and then sends `refetch` (whose
    /// handling loads the server's state), or `failed(error)`.
    public static func forceSync<State: Sendable, Action: Sendable>(
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable (Action) -> (@Sendable () async throws -> Void)?,
        refetch: Action,
        failed: @escaping @Sendable (_ error: any Error) -> Action
    ) -> Middleware<State, Action> {
        Middleware(didReduce: { action, _, _ in
            guard let run = request(action) else { return .none }
            return RemoteUpdate.forceSync(id: id, request: run, refetch: refetch, failed: failed)
        })
    }
}
