import Foundation
import Synchronization
import Testing
import TandemKit

private final class Reports: Sendable {
    private let items = Mutex<[CallbackViolation]>([])
    var all: [CallbackViolation] { items.withLock { $0 } }
    func add(_ violation: CallbackViolation) { items.withLock { $0.append(violation) } }
}

private func makeAdapter(_ sdk: FakeIMSDK, reports: Reports = Reports()) -> IMChatAdapter {
    IMChatAdapter(sdk: sdk, appID: 1400, bridge: CallbackBridge(defaultTimeout: .seconds(30), reporter: reports.add))
}

/// A screen-side flow: save the profile, show the success toast, reload only once it has gone.
private struct ProfileEditor {
    let chat: any ChatService
    let feedback: FeedbackQueue

    func save(_ profile: UserProfile) async -> Result<UserProfile, ChatError> {
        do {
            try await chat.updateProfile(profile)
            await feedback.show(.success("Profile updated"))
            return .success(try await chat.fetchCurrentUser())
        } catch {
            await feedback.show(.error(error.description))
            return .failure(error)
        }
    }
}

/// Shows instantly and fades out in 200 ms of manual-clock time.
private struct InstantPresenter: FeedbackPresenter {
    let clock: ManualClock
    func present(_ item: FeedbackItem) async {}
    func dismiss(_ item: FeedbackItem) async { try? await clock.sleep(for: .milliseconds(200)) }
}

private func waitUntil(_ condition: () async -> Bool) async {
    while !(await condition()) { await Task.yield() }
}

@Suite struct ChatAdapterTests {
    @Test func sdkModelsMapToDomainModelsAndBack() throws {
        let full = FakeIMUserFullInfo(userID: "u1", nickName: "  Mei ", faceURL: "https://cdn.example.com/a.png")
        #expect(IMChatAdapter.profile(from: full) == UserProfile(id: "u1", nickname: "Mei", avatarURL: URL(string: "https://cdn.example.com/a.png")))
        // Missing or blank nicknames fall back to the id; non-web avatar strings are dropped.
        let sparse = FakeIMUserFullInfo(userID: "u2", nickName: " ", faceURL: "javascript:alert(1)")
        #expect(IMChatAdapter.profile(from: sparse) == UserProfile(id: "u2", nickname: "u2", avatarURL: nil))
        #expect(IMChatAdapter.profile(from: FakeIMUserFullInfo(userID: "u3")).nickname == "u3")
        let profile = UserProfile(id: "u4", nickname: "Lin", avatarURL: URL(string: "https://x.example/b.jpg"))
        #expect(IMChatAdapter.userInfo(from: profile) == FakeIMUserFullInfo(userID: "u4", nickName: "Lin", faceURL: "https://x.example/b.jpg"))
        #expect(IMChatAdapter.profile(from: IMChatAdapter.userInfo(from: profile)) == profile)
    }

    @Test func sdkErrorCodesMapToChatErrorsThroughTheDeclaredTable() {
        #expect(IMChatAdapter.errors.overlaps.isEmpty)
        #expect(IMChatAdapter.errors.map(code: 6014, description: "not logged in") == .notLoggedIn)
        #expect(IMChatAdapter.errors.map(code: 70003, description: "sig invalid") == .loginFailed(reason: "sig invalid"))
        #expect(IMChatAdapter.errors.map(code: 6017, description: "nick too long") == .invalidProfile(reason: "nick too long"))
        #expect(IMChatAdapter.errors.map(code: 9999, description: nil) == .sdk(code: 9999, message: ""))
    }

    @Test func updateProfileWaitsForLoginToSucceed() async throws {
        let sdk = FakeIMSDK(holdsLogins: true)
        let chat = makeAdapter(sdk)
        let login = Task { try await chat.login(userID: "mei", token: "valid-sig") }
        await waitUntil { sdk.calls.contains("login") }
        let update = Task { try await chat.updateProfile(UserProfile(id: "mei", nickname: "Mei", avatarURL: nil)) }
        await waitUntil { await chat.loginGate.waitingCount == 1 }
        #expect(!sdk.calls.contains("setSelfInfo"), "the profile was sent before login succeeded")
        sdk.finishLogin(accepted: true)
        try await login.value
        try await update.value
        #expect(sdk.calls == ["login", "setSelfInfo"])
        #expect(sdk.user("mei") == FakeIMUserFullInfo(userID: "mei", nickName: "Mei", faceURL: nil))
    }

    @Test func aFailedLoginFailsTheWaitingUpdateWithoutCallingTheSDK() async {
        let sdk = FakeIMSDK(holdsLogins: true)
        let chat = makeAdapter(sdk)
        let login = Task { try await chat.login(userID: "mei", token: "old-sig") }
        await waitUntil { sdk.calls.contains("login") }
        let update = Task { try await chat.updateProfile(UserProfile(id: "mei", nickname: "Mei", avatarURL: nil)) }
        await waitUntil { await chat.loginGate.waitingCount == 1 }
        sdk.finishLogin(accepted: false)
        await #expect(throws: ChatError.loginFailed(reason: "userSig expired")) { try await login.value }
        await #expect(throws: ChatError.self) { try await update.value }
        #expect(sdk.calls == ["login"])
    }

    @Test func sdkFailuresSurfaceAsDomainErrors() async throws {
        let sdk = FakeIMSDK(setSelfInfoFailure: (6017, "nickname contains forbidden words"))
        let chat = makeAdapter(sdk)
        try await chat.login(userID: "mei", token: "valid-sig")
        await #expect(throws: ChatError.invalidProfile(reason: "nickname contains forbidden words")) {
            try await chat.updateProfile(UserProfile(id: "mei", nickname: "Mei", avatarURL: nil))
        }
        // Validation that needs no SDK round trip happens in the adapter.
        await #expect(throws: ChatError.invalidProfile(reason: "the nickname is empty")) {
            try await chat.updateProfile(UserProfile(id: "mei", nickname: " ", avatarURL: nil))
        }
        #expect(sdk.calls.filter { $0 == "setSelfInfo" }.count == 1)
    }

    @Test func aVendorDoubleCallbackIsReportedAndTheCallStillCompletesOnce() async throws {
        let sdk = FakeIMSDK(callsBackTwice: true)
        let reports = Reports()
        let chat = makeAdapter(sdk, reports: reports)
        try await chat.login(userID: "mei", token: "valid-sig")
        try await chat.updateProfile(UserProfile(id: "mei", nickname: "Mei", avatarURL: nil))
        await waitUntil { !reports.all.isEmpty }
        #expect(reports.all == [CallbackViolation(operation: "setSelfInfo", kind: .duplicateCallback)])
    }

    @Test func lifecycleInitialisesAndTearsDownTheSDK() async throws {
        let sdk = FakeIMSDK()
        let chat = makeAdapter(sdk)
        let lifecycle = ServiceLifecycle([chat])
        try await lifecycle.handle(.launch)
        try await chat.login(userID: "mei", token: "valid-sig")
        #expect(sdk.loggedInUser == "mei")
        try await lifecycle.handle(.logout)
        #expect(sdk.loggedInUser == nil)
        #expect(sdk.calls == ["initSDK", "login", "logout", "unInitSDK"])
        // After logout, chat calls wait for the next login again.
        #expect(await !chat.loginGate.isOpen)
        let refused = IMChatAdapter(sdk: FakeIMSDK(), appID: 0, bridge: CallbackBridge(reporter: { _ in }))
        await #expect(throws: LifecycleError.self) { try await ServiceLifecycle([refused]).handle(.launch) }
    }

    @Test func theScreenReloadsOnlyAfterTheToastHasGoneAndTestsCanSwapTheService() async throws {
        let sdk = FakeIMSDK()
        sdk.seed(FakeIMUserFullInfo(userID: "mei", nickName: "Old", faceURL: nil))
        let container = Container()
        container.register((any ChatService).self) { _ in makeAdapter(sdk) }
        let chat = try container.resolve((any ChatService).self)
        try await chat.login(userID: "mei", token: "valid-sig")

        let clock = ManualClock()
        let feedback = FeedbackQueue(presenter: InstantPresenter(clock: clock), clock: clock)
        let editor = ProfileEditor(chat: chat, feedback: feedback)
        let saving = Task { await editor.save(UserProfile(id: "mei", nickname: "New", avatarURL: nil)) }
        await clock.waitForSleepers(1)  // toast visible
        #expect(sdk.calls == ["login", "setSelfInfo"])
        clock.advance(by: .milliseconds(1500))
        await clock.waitForSleepers(1)  // toast fading
        #expect(!sdk.calls.contains("getUsersInfo"), "reloaded while the toast was still visible")
        clock.advance(by: .milliseconds(200))
        #expect(try await saving.value.get() == UserProfile(id: "mei", nickname: "New", avatarURL: nil))
        #expect(sdk.calls == ["login", "setSelfInfo", "getUsersInfo"])

        // A test container swaps the adapter for a stub without touching the app's container.
        struct Offline: ChatService {
            func login(userID: String, token: String) async throws(ChatError) {}
            func updateProfile(_ profile: UserProfile) async throws(ChatError) { throw .timedOut }
            func fetchCurrentUser() async throws(ChatError) -> UserProfile { throw .timedOut }
            func logout() async {}
        }
        let offline = container.overriding { $0.register((any ChatService).self) { _ in Offline() } }
        let failing = ProfileEditor(chat: try offline.resolve((any ChatService).self), feedback: feedback)
        let failed = Task { await failing.save(UserProfile(id: "mei", nickname: "X", avatarURL: nil)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(2500))
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(200))
        #expect(await failed.value == .failure(.timedOut))
        #expect(try container.resolve((any ChatService).self) is IMChatAdapter)
    }
}
