import Dispatch
import Foundation
import Synchronization
import TandemKit

// The worked example of the adapter layer: an app-facing `ChatService` with domain models,
// implemented by `IMChatAdapter` over `FakeIMSDK`, a callback-style stand-in for a vendor IM
// library (singleton-free, answers on a background queue, reports errors as (code, description)).

/// The app's own user model; the SDK's model never leaves the adapter.
struct UserProfile: Sendable, Equatable {
    var id: String
    var nickname: String
    var avatarURL: URL?
}

/// The app's chat errors: what screens can react to.
enum ChatError: Error, Sendable, Equatable, CustomStringConvertible {
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
protocol ChatService: Sendable {
    func login(userID: String, token: String) async throws(ChatError)
    func updateProfile(_ profile: UserProfile) async throws(ChatError)
    func fetchCurrentUser() async throws(ChatError) -> UserProfile
    func logout() async
}

/// The vendor's user record (the shape of `V2TIMUserFullInfo`).
struct FakeIMUserFullInfo: Sendable, Equatable {
    var userID: String
    var nickName: String?
    var faceURL: String?
}

/// A callback-style IM SDK stand-in. Logins can be held until the test finishes them.
final class FakeIMSDK: Sendable {
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
final class IMChatAdapter: ChatService, LifecycleParticipant {
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
