import Synchronization
import Testing
import TandemKit

private final class CallLog: Sendable {
    private let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func add(_ line: String) { lines.withLock { $0.append(line) } }
}

private struct StartFailure: Error, CustomStringConvertible {
    var description: String { "no network" }
}

private struct RecordingService: LifecycleParticipant {
    let name: String
    let log: CallLog
    var failsToStart = false

    func start() async throws {
        log.add("start \(name)")
        if failsToStart { throw StartFailure() }
    }
    func resume() async { log.add("resume \(name)") }
    func pause() async { log.add("pause \(name)") }
    func tearDown() async { log.add("tearDown \(name)") }
}

/// Implements only `start`, relying on the default no-ops.
private struct MinimalService: LifecycleParticipant {
    let name = "minimal"
    let log: CallLog
    func start() async throws { log.add("start minimal") }
}

@Suite struct ServicesLifecycleTests {
    @Test func startsInOrderAndPausesAndTearsDownInReverse() async throws {
        let log = CallLog()
        let lifecycle = ServiceLifecycle([
            RecordingService(name: "storage", log: log),
            RecordingService(name: "IM", log: log),
            MinimalService(log: log),
        ])
        try await lifecycle.handle(.launch)
        try await lifecycle.handle(.background)
        #expect(await lifecycle.phase == .background)
        try await lifecycle.handle(.foreground)
        try await lifecycle.handle(.logout)
        #expect(await lifecycle.phase == .idle)
        #expect(log.all == [
            "start storage", "start IM", "start minimal",
            "pause IM", "pause storage",
            "resume storage", "resume IM",
            "tearDown IM", "tearDown storage",
        ])
    }

    @Test func aFailedStartTearsDownWhatStartedAndStaysIdle() async throws {
        let log = CallLog()
        let lifecycle = ServiceLifecycle([
            RecordingService(name: "storage", log: log),
            RecordingService(name: "push", log: log),
            RecordingService(name: "IM", log: log, failsToStart: true),
            RecordingService(name: "analytics", log: log),
        ])
        await #expect(throws: LifecycleError.startFailed(service: "IM", reason: "no network")) { try await lifecycle.handle(.launch) }
        #expect(log.all == ["start storage", "start push", "start IM", "tearDown push", "tearDown storage"])
        #expect(await lifecycle.phase == .idle)
    }

    @Test func eventsThatMakeNoSenseAreRejectedAndRepeatsIgnored() async throws {
        let log = CallLog()
        let lifecycle = ServiceLifecycle([RecordingService(name: "IM", log: log)])
        await #expect(throws: LifecycleError.invalidEvent(.background, phase: .idle)) { try await lifecycle.handle(.background) }
        await #expect(throws: LifecycleError.invalidEvent(.foreground, phase: .idle)) { try await lifecycle.handle(.foreground) }
        try await lifecycle.handle(.logout)
        try await lifecycle.handle(.launch)
        await #expect(throws: LifecycleError.invalidEvent(.launch, phase: .active)) { try await lifecycle.handle(.launch) }
        try await lifecycle.handle(.foreground)
        try await lifecycle.handle(.background)
        try await lifecycle.handle(.background)
        #expect(log.all == ["start IM", "pause IM"])
        #expect(LifecycleError.invalidEvent(.background, phase: .idle).description.contains("send launch first"))
    }

    @Test func concurrentEventsAreHandledOneAtATime() async throws {
        let log = CallLog()
        let lifecycle = ServiceLifecycle([RecordingService(name: "a", log: log), RecordingService(name: "b", log: log)])
        try await lifecycle.handle(.launch)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask { try? await lifecycle.handle(index.isMultiple(of: 2) ? .background : .foreground) }
            }
        }
        // Whatever the order, every pause or resume of "b" is completed before the next event starts.
        let lines = Array(log.all.dropFirst(2))
        #expect(lines.count.isMultiple(of: 2))
        for pair in stride(from: 0, to: lines.count, by: 2) {
            let (first, second) = (lines[pair], lines[pair + 1])
            #expect((first == "pause b" && second == "pause a") || (first == "resume a" && second == "resume b"), "\(first), \(second)")
        }
    }
}
