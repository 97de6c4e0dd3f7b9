import Testing
import TandemKit
import TandemKitTesting

@Suite struct StoreUpdateStrategyTests {
    static let ann = FollowProfile(id: "u1", name: "Ann", follow: FollowStatus(isFollowing: false, followerCount: 10))
    static let offline = FollowError.offline.description

    /// An API double that records its calls; requests wait for `gate` when one is given.
    static func api(
        calls: Recorder<String>,
        gate: TestGate? = nil,
        fails: Bool = false,
        server: FollowProfile = ann
    ) -> FollowAPI {
        FollowAPI(
            follow: { id in
                calls.append("follow \(id)")
                await gate?.wait()
                if fails { throw FollowError.offline }
            },
            unfollow: { id in
                calls.append("unfollow \(id)")
                await gate?.wait()
                if fails { throw FollowError.offline }
            },
            fetchProfile: { id in
                calls.append("fetch \(id)")
                return server
            }
        )
    }

    // MARK: Optimistic

    @Test func optimisticAppliesAtOnceAndKeepsItOnSuccess() async {
        let calls = Recorder<String>()
        let store = TestStore(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .optimistic, api: Self.api(calls: calls))
        )
        await store.send(.followTapped) { $0.profile.follow = FollowStatus(isFollowing: true, followerCount: 11) }
        await store.receive(.followSucceeded)
        await store.finish()
        #expect(calls.all == ["follow u1"])
    }

    @Test func optimisticFailureRestoresTheExactPriorSliceAndReportsTheError() async {
        // Inconsistent server data: following, yet zero followers. Unfollowing clamps at zero, so
        // re-following as an "inverse" would give 1; the rollback must give back exactly 0.
        var profile = Self.ann
        profile.follow = FollowStatus(isFollowing: true, followerCount: 0)
        let gate = TestGate()
        let store = TestStore(
            initialState: ProfileState(profile: profile),
            reducer: profileReducer(strategy: .optimistic, api: Self.api(calls: Recorder(), gate: gate, fails: true))
        )
        await store.send(.unfollowTapped) { $0.profile.follow = FollowStatus(isFollowing: false, followerCount: 0) }
        // A change elsewhere while the request is in flight survives the rollback.
        await store.send(.renamed("Anna")) { $0.profile.name = "Anna" }
        gate.open()
        let rollback = Rollback<ProfileState, FollowStatus>(
            slice: \.profile.follow,
            previousValue: FollowStatus(isFollowing: true, followerCount: 0)
        )
        await store.receive(.rolledBack(rollback, Self.offline)) {
            $0.profile.follow = FollowStatus(isFollowing: true, followerCount: 0)
            $0.errorMessage = Self.offline
        }
        await store.finish()
        #expect(store.state.profile.name == "Anna")
    }

    @Test func optimisticOnARealStoreShowsTheChangeThenTheRollback() async throws {
        let gate = TestGate()
        let store = Store(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .optimistic, api: Self.api(calls: Recorder(), gate: gate, fails: true))
        )
        let statuses = ChangeLog(store) { $0.profile.follow }
        store.send(.followTapped)
        #expect(store.state.profile.follow == FollowStatus(isFollowing: true, followerCount: 11))
        gate.open()
        let seen = try await statuses.first(3)
        #expect(seen == [
            FollowStatus(isFollowing: false, followerCount: 10),
            FollowStatus(isFollowing: true, followerCount: 11),
            FollowStatus(isFollowing: false, followerCount: 10),
        ])
        #expect(store.state.errorMessage == Self.offline)
    }

    // MARK: Pessimistic

    @Test func pessimisticAppliesOnlyAfterSuccess() async {
        let gate = TestGate()
        let calls = Recorder<String>()
        let store = TestStore(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .pessimistic, api: Self.api(calls: calls, gate: gate))
        )
        await store.send(.followTapped)
        #expect(store.state.profile.follow.isFollowing == false, "nothing changes while the request runs")
        gate.open()
        await store.receive(.followApplied(true)) {
            $0.profile.follow = FollowStatus(isFollowing: true, followerCount: 11)
        }
        await store.finish()
        #expect(calls.all == ["follow u1"])
    }

    @Test func pessimisticFailureLeavesTheStateAndReportsTheError() async {
        let store = TestStore(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .pessimistic, api: Self.api(calls: Recorder(), fails: true))
        )
        await store.send(.followTapped)
        await store.receive(.followFailed(Self.offline)) { $0.errorMessage = Self.offline }
        await store.finish()
        #expect(store.state.profile == Self.ann)
    }

    // MARK: Force sync

    @Test func forceSyncRefetchesAfterSuccessAndAppliesTheServersAnswer() async {
        // The server counts followers the client never saw: its answer wins over any local guess.
        var server = Self.ann
        server.follow = FollowStatus(isFollowing: true, followerCount: 57)
        let calls = Recorder<String>()
        let store = TestStore(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .forceSync, api: Self.api(calls: calls, server: server))
        )
        await store.send(.followTapped)
        await store.receive(.refetch)
        await store.receive(.profileLoaded(server)) { $0.profile = server }
        await store.finish()
        #expect(calls.all == ["follow u1", "fetch u1"])
    }

    @Test func forceSyncFailureDoesNotRefetch() async {
        let calls = Recorder<String>()
        let store = TestStore(
            initialState: ProfileState(profile: Self.ann),
            reducer: profileReducer(strategy: .forceSync, api: Self.api(calls: calls, fails: true))
        )
        await store.send(.unfollowTapped)
        await store.receive(.followFailed(Self.offline)) { $0.errorMessage = Self.offline }
        await store.finish()
        #expect(calls.all == ["unfollow u1"])
    }

    @Test func rollbacksCompareBySliceAndValue() {
        let a = Rollback<ProfileState, FollowStatus>(slice: \.profile.follow, previousValue: Self.ann.follow)
        let b = Rollback<ProfileState, FollowStatus>(slice: \.profile.follow, previousValue: Self.ann.follow)
        var other = Self.ann.follow
        other.followerCount += 1
        let c = Rollback<ProfileState, FollowStatus>(slice: \.profile.follow, previousValue: other)
        #expect(a == b)
        #expect(a != c)
    }
}
