import Dispatch
import Foundation
import Synchronization
import TandemTesting
import Testing
import TandemKit

// The worked example of the adapter layer: an app-facing `ChatService` with domain models,
// implemented by `IMChatAdapter` over `FakeIMSDK`, a callback-style stand-in for a vendor IM
// library (singleton-free, answers on a background queue, reports errors as (code, description)).

/// The app's own user model; the SDK's model never leaves the adapter.
private struct UserProfile: Sendable, Equatable {
    var id: String
    var nickname: String
    var avatarURL: URL?
}

/// The app's chat errors: what screens can react to.
private enum ChatError: Error, Sendable, Equatable, CustomStringConvertible {
    case notLoggedIn
    case loginFailed(reason: String)
    case invalidProfile(reason: String)
    case timedOut
    case cancelled
    case sdk(code: Int, message: String)

    var description: String {
        switch self {
        case .notLoggedIn: return "you are not logged in to chat; log in and try again"
        case let .loginFailed(reason): return "chat login failed: \(reason)"
        case let .invalidProfile(reason): return "the profile was rejected: \(reason)"
        case .timedOut: return "chat did not answer in time; check the connection and retry"
        case .cancelled: return "the chat request was cancelled"
        case let .sdk(code, message): return "chat error \(code): \(message)"
        }
    }
}

/// What the rest of the app sees of chat.
private protocol ChatService: Sendable {
    func login(userID: String, token: String) async throws(ChatError)
    func updateProfile(_ profile: UserProfile) async throws(ChatError)
    func fetchCurrentUser() async throws(ChatError) -> UserProfile
    func logout() async
}

/// The vendor's user record (the shape of `V2TIMUserFullInfo`).
private struct FakeIMUserFullInfo: Sendable, Equatable {
    var userID: String
    var nickName: String?
    var faceURL: String?
}

/// A callback-style IM SDK stand-in. Logins can be held until the test finishes them.
private final class FakeIMSDK: Sendable {
    typealias Success = @Sendable () -> Void
    typealias Failure = @Sendable (Int32, String?) -> Void

    private struct State {
        var initialised = false
        var loggedInUser: String?
        var users: [String: FakeIMUserFullInfo] = [:]
        var heldLogin: (user: String, succ: Success, fail: Failure)?
        var calls: [String] = []
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "fake-im-sdk")
    /// When true, `login` waits for `finishLogin` instead of answering.
    let holdsLogins: Bool
    /// When set, `setSelfInfo` fails with this code and description.
    let setSelfInfoFailure: (Int32, String)?
    /// When true, success callbacks fire twice (a vendor bug the bridge must survive).
    let callsBackTwice: Bool

    init(holdsLogins: Bool = false, setSelfInfoFailure: (Int32, String)? = nil, callsBackTwice: Bool = false) {
        self.holdsLogins = holdsLogins
        self.setSelfInfoFailure = setSelfInfoFailure
        self.callsBackTwice = callsBackTwice
    }

    var calls: [String] { state.withLock { $0.calls } }
    var loggedInUser: String? { state.withLock { $0.loggedInUser } }
    func user(_ id: String) -> FakeIMUserFullInfo? { state.withLock { $0.users[id] } }
    func seed(_ info: FakeIMUserFullInfo) { state.withLock { $0.users[info.userID] = info } }

    func initSDK(appID: Int) -> Bool {
        state.withLock {
            $0.calls.append("initSDK")
            $0.initialised = appID > 0
            return $0.initialised
        }
    }

    func unInitSDK() {
        state.withLock {
            $0.calls.append("unInitSDK")
            $0.initialised = false
        }
    }

    func login(_ userID: String, userSig: String, succ: @escaping Success, fail: @escaping Failure) {
        let hold = state.withLock { state -> Bool in
            state.calls.append("login")
            if holdsLogins { state.heldLogin = (userID, succ, fail) }
            return holdsLogins
        }
        if !hold { answerLogin(userID, accepted: userSig == "valid-sig", succ: succ, fail: fail) }
    }

    /// Answers a held login.
    func finishLogin(accepted: Bool) {
        guard let held = state.withLock({ state in defer { state.heldLogin = nil }; return state.heldLogin }) else { return }
        answerLogin(held.user, accepted: accepted, succ: held.succ, fail: held.fail)
    }

    private func answerLogin(_ userID: String, accepted: Bool, succ: @escaping Success, fail: @escaping Failure) {
        queue.async {
            if accepted {
                self.state.withLock { $0.loggedInUser = userID }
                succ()
            } else {
                fail(70001, "userSig expired")
            }
        }
    }

    func setSelfInfo(_ info: FakeIMUserFullInfo, succ: @escaping Success, fail: @escaping Failure) {
        queue.async {
            let outcome = self.state.withLock { state -> (Int32, String)? in
                state.calls.append("setSelfInfo")
                guard state.loggedInUser == info.userID else { return (6014, "not logged in") }
                if let failure = self.setSelfInfoFailure { return failure }
                state.users[info.userID] = info
                return nil
            }
            if let (code, description) = outcome {
                fail(code, description)
            } else {
                succ()
                if self.callsBackTwice { succ() }
            }
        }
    }

    func getUsersInfo(_ ids: [String], succ: @escaping @Sendable ([FakeIMUserFullInfo]) -> Void, fail: @escaping Failure) {
        queue.async {
            let found = self.state.withLock { state -> [FakeIMUserFullInfo]? in
                state.calls.append("getUsersInfo")
                guard state.loggedInUser != nil else { return nil }
                return ids.compactMap { state.users[$0] }
            }
            if let found { succ(found) } else { fail(6014, "not logged in") }
        }
    }

    func logout(succ: @escaping Success, fail: @escaping Failure) {
        queue.async {
            self.state.withLock {
                $0.calls.append("logout")
                $0.loggedInUser = nil
            }
            succ()
        }
    }
}

/// The adapter: callback → async through `CallbackBridge`, SDK model ↔ `UserProfile`, SDK codes →
/// `ChatError` through a declared `ErrorTable`, "profile only after login" through a `Gate`, and
/// SDK init/teardown through `LifecycleParticipant`.
private final class IMChatAdapter: ChatService, LifecycleParticipant {
    static let errors = ErrorTable<ChatError>([
        .code(6014, .notLoggedIn),
        .code(6017) { .invalidProfile(reason: $0.message) },
        .codes(70001...70003) { .loginFailed(reason: $0.message) },
    ], otherwise: { .sdk(code: $0.code, message: $0.message) })

    let name = "IM"
    private let sdk: FakeIMSDK
    private let appID: Int
    private let bridge: CallbackBridge
    let loginGate = Gate<String>(name: "IM login")

    init(sdk: FakeIMSDK, appID: Int, bridge: CallbackBridge) {
        self.sdk = sdk
        self.appID = appID
        self.bridge = bridge
    }

    static func profile(from info: FakeIMUserFullInfo) -> UserProfile {
        let nickname = info.nickName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let url = info.faceURL.flatMap(URL.init(string:)).flatMap { ["http", "https"].contains($0.scheme?.lowercased()) ? $0 : nil }
        return UserProfile(id: info.userID, nickname: nickname.isEmpty ? info.userID : nickname, avatarURL: url)
    }

    static func userInfo(from profile: UserProfile) -> FakeIMUserFullInfo {
        FakeIMUserFullInfo(userID: profile.id, nickName: profile.nickname, faceURL: profile.avatarURL?.absoluteString)
    }

    static func chatError(_ error: any Error) -> ChatError {
        switch error {
        case let error as ChatError: return error
        case let error as SDKFailure: return errors.map(error)
        case let GateError.conditionFailed(_, reason): return .loginFailed(reason: reason)
        case is CallbackBridgeError: return .timedOut
        default: return .cancelled
        }
    }

    private func sdkFailure(_ resumer: CallbackResumer<some Sendable>) -> FakeIMSDK.Failure {
        { code, description in resumer.resume(throwing: SDKFailure(code: Int(code), message: description)) }
    }

    func start() async throws {
        guard sdk.initSDK(appID: appID) else { throw ChatError.sdk(code: -1, message: "initSDK refused app id \(appID)") }
    }

    func tearDown() async {
        await logout()
        sdk.unInitSDK()
    }

    func login(userID: String, token: String) async throws(ChatError) {
        do {
            try await bridge.call("login") { (done: CallbackResumer<Void>) in
                sdk.login(userID, userSig: token, succ: { done.resume() }, fail: sdkFailure(done))
            }
            await loginGate.open(userID)
        } catch {
            let mapped = Self.chatError(error)
            await loginGate.fail(mapped)
            throw mapped
        }
    }

    func updateProfile(_ profile: UserProfile) async throws(ChatError) {
        guard !profile.nickname.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .invalidProfile(reason: "the nickname is empty")
        }
        do {
            try await loginGate.run { [bridge, sdk] _ in
                try await bridge.call("setSelfInfo") { (done: CallbackResumer<Void>) in
                    sdk.setSelfInfo(Self.userInfo(from: profile), succ: { done.resume() }, fail: self.sdkFailure(done))
                }
            }
        } catch {
            throw Self.chatError(error)
        }
    }

    func fetchCurrentUser() async throws(ChatError) -> UserProfile {
        do {
            return try await loginGate.run { [bridge, sdk] userID in
                let infos: [FakeIMUserFullInfo] = try await bridge.call("getUsersInfo") { done in
                    sdk.getUsersInfo([userID], succ: { done.resume(returning: $0) }, fail: self.sdkFailure(done))
                }
                return Self.profile(from: infos.first ?? FakeIMUserFullInfo(userID: userID))
            }
        } catch {
            throw Self.chatError(error)
        }
    }

    func logout() async {
        await loginGate.fail(ChatError.notLoggedIn)
        _ = try? await bridge.call("logout") { (done: CallbackResumer<Void>) in
            sdk.logout(succ: { done.resume() }, fail: sdkFailure(done))
        }
    }
}

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
