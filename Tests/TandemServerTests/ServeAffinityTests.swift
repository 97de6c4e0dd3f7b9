import Foundation
import Testing

/// Runs the real `tandem` binary under `taskset`: its default loop count follows the cores it may use.
@Suite struct ServeAffinityTests {
    @Test func aServerPinnedToOneCoreStartsOneLoop() async throws {
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        try #require(FileManager.default.isExecutableFile(atPath: taskset.path), "util-linux's taskset is needed")
        let binary = try CrashDurabilityTests.tandemBinary()
        let banner = try await CrashDurabilityTests.offload { () throws -> String in
            let process = Process()
            process.executableURL = taskset
            // In memory the default is one loop per core: on any machine it may use, a pinned server has one.
            process.arguments = ["-c", "0", binary.path, "serve", "--port", "0", "--in-memory", "--log-level", "error"]
            process.environment = ["TANDEM_SECRET": "affinity", "PATH": "/usr/bin:/bin"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { process.terminate(); process.waitUntilExit() }
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline, !text.contains("event-loop thread") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        #expect(banner.contains("  loops      1 event-loop thread\n"), "banner: \(banner)")
    }
}
