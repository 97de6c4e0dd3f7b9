import Foundation
import Testing
import TandemTestSupport

/// Runs the real `tandem` binary under `taskset`: its default loop count follows the cores it may use.
@Suite struct ServeAffinityTests {
    @Test func aServerPinnedToOneCoreStartsOneLoop() async throws {
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        try #require(FileManager.default.isExecutableFile(atPath: taskset.path), "util-linux's taskset is needed")
        let banner = try await CrashDurabilityTests.offload { () throws -> String in
            // In memory the default is one loop per core: on any machine it may use, a pinned server has one.
            let server = try ServeProcess.start(["serve", "--port", "0", "--in-memory", "--log-level", "error"], secret: "affinity",
                                                launcher: taskset, launcherArguments: ["-c", "0"])
            defer { server.terminate() }
            return server.read { $0.contains("event-loop thread") }
        }
        #expect(banner.contains("  loops      1 event-loop thread\n"), "banner: \(banner)")
    }
}
