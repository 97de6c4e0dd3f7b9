import TandemKit

/// The follow/unfollow example: a user profile whose follow button talks to a server.

struct FollowStatus: Equatable, Sendable {
    var isFollowing: Bool
    var followerCount: Int

    /// The local effect of (un)following. Clamped at zero, so it is lossy on inconsistent data —
    /// which is exactly when a recomputed inverse would differ from the true prior value.
    mutating func apply(following: Bool) {
        isFollowing = following
        followerCount = max(0, followerCount + (following ? 1 : -1))
    }
}

struct FollowProfile: Equatable, Sendable {
    var id: String
    var name: String
    var follow: FollowStatus
}

struct ProfileState: Equatable, Sendable {
    var profile: FollowProfile
    var errorMessage: String?
}

enum FollowError: Error, Equatable, CustomStringConvertible {
    case offline

    var description: String { "The server could not be reached; check the connection and try again." }
}

/// The injected server API.
struct FollowAPI: Sendable {
    var follow: @Sendable (_ userID: String) async throws -> Void
    var unfollow: @Sendable (_ userID: String) async throws -> Void
    var fetchProfile: @Sendable (_ userID: String) async throws -> FollowProfile
}

enum ProfileAction: Equatable, Sendable {
    case followTapped
    case unfollowTapped
    case renamed(String)
    case followSucceeded
    case followApplied(Bool)
    case followFailed(String)
    case rolledBack(Rollback<ProfileState, FollowStatus>, String)
    case refetch
    case profileLoaded(FollowProfile)
}

enum FollowStrategy: Sendable {
    case optimistic, pessimistic, forceSync
}

/// The profile feature, with the follow button wired through the chosen strategy.
func profileReducer(strategy: FollowStrategy, api: FollowAPI) -> Store<ProfileState, ProfileAction>.Reducer {
    { (state: inout ProfileState, action: ProfileAction) -> Effect<ProfileAction> in
        let userID = state.profile.id
        switch action {
        case .followTapped, .unfollowTapped:
            let following = action == .followTapped
            let call = following ? api.follow : api.unfollow
            let request: @Sendable () async throws -> Void = { try await call(userID) }
            switch strategy {
            case .optimistic:
                return RemoteUpdate.optimistic(
                    \.profile.follow, in: &state,
                    apply: { $0.apply(following: following) },
                    id: "follow", request: request,
                    succeeded: .followSucceeded,
                    failed: { rollback, error in .rolledBack(rollback, "\(error)") }
                )
            case .pessimistic:
                return RemoteUpdate.pessimistic(
                    id: "follow", request: request,
                    succeeded: { _ in .followApplied(following) },
                    failed: { .followFailed("\($0)") }
                )
            case .forceSync:
                return RemoteUpdate.forceSync(
                    id: "follow", request: request, refetch: .refetch,
                    failed: { .followFailed("\($0)") }
                )
            }
        case .renamed(let name):
            state.profile.name = name
        case .followSucceeded:
            break
        case .followApplied(let following):
            state.profile.follow.apply(following: following)
        case .followFailed(let message):
            state.errorMessage = message
        case .rolledBack(let rollback, let message):
            rollback.restore(in: &state)
            state.errorMessage = message
        case .refetch:
            return .run(id: "refetch", cancelInFlight: true) { send in
                send(.profileLoaded(try await api.fetchProfile(userID)))
            } catch: { error, send in
                send(.followFailed("\(error)"))
            }
        case .profileLoaded(let profile):
            state.profile = profile
        }
        return .none
    }
}
