import Testing
import TandemKit

/// Publishing a post: the image upload and the text post run in parallel; success only when both
/// have succeeded; any failure leads to `failure`, from which the user may retry.
enum PublishingState: Hashable, Sendable {
    case idle
    case publishing(imageProgress: Int, textPosted: Bool)
    case success
    case failure(PublishingError)
}

enum PublishingError: Hashable, Sendable { case imageUploadFailed, textPostFailed }

enum PublishingEvent: Hashable, Sendable {
    case publish
    case imageProgress(Int)
    case imageUploaded
    case textPosted
    case failed(PublishingError)
    case retry
}

enum Publishing {
    static let publishing = TransitionMatcher<PublishingState>.kind("publishing") { if case .publishing = $0 { true } else { false } }

    static func table() -> TransitionTable<PublishingState, PublishingEvent> {
        typealias T = Transition<PublishingState, PublishingEvent>
        let started = PublishingState.publishing(imageProgress: 0, textPosted: false)
        let imageDone = TransitionGuard<PublishingState, PublishingEvent>("image not uploaded") { state, _ in
            if case let .publishing(progress, _) = state { progress < 100 } else { false }
        }
        let textPending = TransitionGuard<PublishingState, PublishingEvent>("text not posted") { state, _ in
            if case let .publishing(_, posted) = state { !posted } else { false }
        }
        return TransitionTable([
            T(from: .idle, on: .publish, to: started),
            T(from: publishing, on: .kind("imageProgress") { if case .imageProgress = $0 { true } else { false } },
              to: .computed("publishing") { state, event in
                  guard case let .publishing(_, posted) = state, case let .imageProgress(value) = event else { return state }
                  return .publishing(imageProgress: min(99, max(0, value)), textPosted: posted)
              }, guard: imageDone, internal: true),
            T(from: publishing, on: .imageUploaded, to: .computed("publishing|success") { state, _ in
                  if case .publishing(_, true) = state { return .success }
                  return .publishing(imageProgress: 100, textPosted: false)
              }, guard: imageDone),
            T(from: publishing, on: .textPosted, to: .computed("publishing|success") { state, _ in
                  if case .publishing(100, _) = state { return .success }
                  if case let .publishing(progress, _) = state { return .publishing(imageProgress: progress, textPosted: true) }
                  return state
              }, guard: textPending),
            T(from: publishing, on: .kind("failed") { if case .failed = $0 { true } else { false } },
              to: .computed("failure") { _, event in
                  if case let .failed(error) = event { return .failure(error) }
                  return .failure(.textPostFailed)
              }),
            T(from: .kind("failure") { if case .failure = $0 { true } else { false } }, on: .retry, to: .state(started)),
        ])
    }
}

@Suite struct StateMachinePublishingExampleTests {
    typealias Machine = StateMachine<PublishingState, PublishingEvent>
    typealias Failure = StateMachineError<PublishingState, PublishingEvent>

    @Test(arguments: [[PublishingEvent.imageUploaded, .textPosted], [.textPosted, .imageUploaded], [.imageProgress(40), .textPosted, .imageUploaded]])
    func succeedsOnlyWhenBothPartsSucceedInAnyOrder(order: [PublishingEvent]) throws {
        var machine = Machine(initial: .idle, table: Publishing.table())
        try machine.handle(.publish)
        for event in order.dropLast() {
            try machine.handle(event)
            #expect(machine.state != .success)
        }
        try machine.handle(order.last!)
        #expect(machine.state == .success)
    }

    @Test func anyFailureLeadsToFailureAndRetryRestarts() throws {
        var machine = Machine(initial: .idle, table: Publishing.table())
        try machine.handle(.publish)
        try machine.handle(.textPosted)
        try machine.handle(.failed(.imageUploadFailed))
        #expect(machine.state == .failure(.imageUploadFailed))
        try machine.handle(.retry)
        #expect(machine.state == .publishing(imageProgress: 0, textPosted: false))
    }

    @Test func tracksImageProgress() throws {
        var machine = Machine(initial: .idle, table: Publishing.table())
        try machine.handle(.publish)
        try machine.handle(.imageProgress(42))
        #expect(machine.state == .publishing(imageProgress: 42, textPosted: false))
    }

    @Test func refusesDuplicateCompletionsWithGuardError() throws {
        var machine = Machine(initial: .idle, table: Publishing.table())
        try machine.handle(.publish)
        try machine.handle(.textPosted)
        let posted = machine.state
        #expect(throws: Failure.guardRejected(from: posted, event: .textPosted, guards: ["text not posted"])) {
            try machine.handle(.textPosted)
        }
    }

    @Test(arguments: [
        (PublishingState.idle, PublishingEvent.imageUploaded),
        (.idle, .retry),
        (.publishing(imageProgress: 0, textPosted: false), .publish),
        (.publishing(imageProgress: 0, textPosted: false), .retry),
        (.success, .retry),
        (.success, .failed(.textPostFailed)),
        (.failure(.textPostFailed), .textPosted),
        (.failure(.textPostFailed), .publish),
    ])
    func refusesInvalidTransitions(state: PublishingState, event: PublishingEvent) {
        var machine = Machine(initial: state, table: Publishing.table())
        #expect(throws: Failure.invalidTransition(from: state, event: event)) { try machine.handle(event) }
    }
}
