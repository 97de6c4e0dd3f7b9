import Synchronization
import Testing
import TandemKit

/// The publishing flow as a pipeline: upload the image ∥ post the text, then show the success
/// toast, then navigate to the feed; every step reports into the `PublishingState` machine.
@Suite struct PipelinePublishingExampleTests {
    struct Post: Sendable {
        let image: [UInt8]
        let text: String
    }

    /// The UI side: the state machine plus a log of what the user saw.
    final class Screen: Sendable {
        private let machine = FlowLockedMachine(StateMachine(initial: PublishingState.idle, table: Publishing.table()))
        let shown = FlowLog<String>()

        var state: PublishingState { machine.state }
        func send(_ event: PublishingEvent) throws { try machine.handle(event) }
    }

    static func publish(screen: Screen, upload: @escaping @Sendable ([UInt8]) async throws -> String, postText: @escaping @Sendable (String) async throws -> Int) -> Pipeline<Post, Void> {
        Pipeline<Post, Post>(name: "begin") { post in
            try screen.send(.publish)
            screen.shown.append("mask")
            return post
        }
        .parallel(
            name: "publish",
            PipelineStep("uploadImage") { (post: Post) in
                try await reporting(to: screen, success: .imageUploaded, failure: .imageUploadFailed) { try await upload(post.image) }
            },
            PipelineStep("postText") { (post: Post) in
                try await reporting(to: screen, success: .textPosted, failure: .textPostFailed) { try await postText(post.text) }
            }
        )
        .then(name: "toast") { (_: (String, Int)) in screen.shown.append("success toast") }
        .then(name: "navigate") { screen.shown.append("feed, scrolled to newest") }
    }

    /// Runs one half of the publication and tells the state machine how it went.
    static func reporting<T: Sendable>(to screen: Screen, success: PublishingEvent, failure: PublishingError, _ work: @Sendable () async throws -> T) async throws -> T {
        let value: T
        do {
            value = try await work()
        } catch {
            try? screen.send(.failed(failure))
            throw error
        }
        try screen.send(success)
        return value
    }

    @Test func bothSucceedThenToastThenNavigate() async throws {
        let screen = Screen()
        let pipeline = Self.publish(screen: screen, upload: { _ in "https://cdn/img.png" }, postText: { _ in 7 })
        try await pipeline.run(Post(image: [1, 2, 3], text: "hello"))
        #expect(screen.state == .success)
        #expect(screen.shown.all == ["mask", "success toast", "feed, scrolled to newest"])
        #expect(pipeline.stepNames == ["begin", "publish", "toast", "navigate"])
    }

    @Test func anyFailureStopsBeforeToastAndAllowsRetry() async throws {
        let screen = Screen()
        let failing = Self.publish(screen: screen, upload: { _ in throw PipelineTestError(message: "upload failed") }, postText: { _ in 7 })
        await #expect(throws: PipelineError.self) { try await failing.run(Post(image: [], text: "hi")) }
        #expect(screen.state == .failure(.imageUploadFailed))
        #expect(!screen.shown.all.contains("success toast"))
        try screen.send(.retry)
        #expect(screen.state == .publishing(imageProgress: 0, textPosted: false))
    }
}

/// A state machine shared by concurrent steps: one writer at a time behind a lock.
final class FlowLockedMachine<State: Hashable & Sendable, Event: Hashable & Sendable>: Sendable {
    private let machine: Mutex<StateMachine<State, Event>>

    init(_ machine: StateMachine<State, Event>) {
        self.machine = Mutex(machine)
    }

    var state: State { machine.withLock { $0.state } }

    func handle(_ event: Event) throws(StateMachineError<State, Event>) {
        try machine.withLock { (machine) throws(StateMachineError<State, Event>) in _ = try machine.handle(event) }
    }
}
