/// The three ways to reconcile a local change with a server request, as reducer helpers: call
/// one from the reducer case that starts the change and return its effect.
///
/// - `optimistic`: change the state now, run the request; on failure a `Rollback` holding the
///   exact prior value comes back in an action, for the reducer to restore.
/// - `pessimistic`: leave the state alone; on success the server's response comes back in an
///   action, for the reducer to apply.
/// - `forceSync`: run the request; on success dispatch a refetch action, whose effect loads the
///   server's state so the reducer can apply the server's answer.
///
/// Every failure is reported as an action (never dropped); cancellation is silent.
public enum RemoteUpdate {
    /// Applies `change` to `slice` of `state` immediately and returns the request's effect.
    ///
    /// On success sends `succeeded` (if given); on failure sends `failed(rollback, error)`, where
    /// `rollback` restores the slice's value captured here, before the change.
    ///
    /// - Parameters:
    ///   - id: Cancellation id for the request (see `Effect.run(id:cancelInFlight:)`).
    public static func optimistic<State, Value: Sendable, Action: Sendable>(
        _ slice: any WritableKeyPath<State, Value> & Sendable,
        in state: inout State,
        apply change: (inout Value) -> Void,
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable () async throws -> Void,
        succeeded: Action? = nil,
        failed: @escaping @Sendable (_ rollback: Rollback<State, Value>, _ error: any Error) -> Action
    ) -> Effect<Action> {
        let rollback = Rollback(slice: slice, previousValue: state[keyPath: slice])
        change(&state[keyPath: slice])
        return requestEffect(rollback, id: id, request: request, succeeded: succeeded, failed: failed)
    }

    /// The request effect of an optimistic change whose prior value `rollback` holds.
    static func requestEffect<State, Value: Sendable, Action: Sendable>(
        _ rollback: Rollback<State, Value>, id: (any Hashable & Sendable)?, request: @escaping @Sendable () async throws -> Void,
        succeeded: Action?, failed: @escaping @Sendable (_ rollback: Rollback<State, Value>, _ error: any Error) -> Action
    ) -> Effect<Action> {
        .run(id: id) { send in
            try await request()
            if let succeeded { send(succeeded) }
        } catch: { error, send in
            send(failed(rollback, error))
        }
    }

    /// Runs `request` without touching the state; sends `succeeded(response)` on success, for the
    /// reducer to apply, or `failed(error)` on failure.
    public static func pessimistic<Response: Sendable, Action: Sendable>(
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable () async throws -> Response,
        succeeded: @escaping @Sendable (Response) -> Action,
        failed: @escaping @Sendable (_ error: any Error) -> Action
    ) -> Effect<Action> {
        .run(id: id) { send in
            send(succeeded(try await request()))
        } catch: { error, send in
            send(failed(error))
        }
    }

    /// Runs `request`; on success dispatches `refetch` (whose handling loads the server's
    /// authoritative state), on failure sends `failed(error)`. The state is not touched here.
    public static func forceSync<Action: Sendable>(
        id: (any Hashable & Sendable)? = nil,
        request: @escaping @Sendable () async throws -> Void,
        refetch: Action,
        failed: @escaping @Sendable (_ error: any Error) -> Action
    ) -> Effect<Action> {
        pessimistic(id: id, request: request, succeeded: { _ in refetch }, failed: failed)
    }
}
