import Synchronization
import Foundation
import Testing
import TandemTestSupport

/// The real `tandem serve` shuts down gracefully on SIGTERM, even one sent the moment its banner is out.
@Suite struct ServeTerminationTests {
    @Test func aSIGTERMSentAsSoonAsTheBannerIsOutShutsTheServerDown() async throws {
        // Signals sent the moment the banner appears, many times, while other threads keep both cores busy:
        // a window in which a signal is ignored or not yet watched for would be hit.
        let load = CPULoad(threads: 2)
        defer { load.stop() }
        for _ in 0..<25 {
            let (exitedByItself, status, output) = try await CrashDurabilityTests.offload { () throws -> (Bool, Int32, String) in
                let server = try ServeProcess.start(["serve", "--port", "0", "--in-memory", "--log-level", "error"], secret: "termination")
                let banner = server.read { $0.contains("Stop with Ctrl-C") }
                let exited = server.terminate()
                return (exited, server.process.terminationStatus, banner + server.readToEnd())
            }
            #expect(exitedByItself, "the server ignored SIGTERM; output: \(output)")
            #expect(status == 0)
            #expect(output.contains("tandem serve: SIGTERM received, shutting down"))
        }
    }
}

/// Threads that spin until stopped, to load the machine while a test looks for a timing window.
final class CPULoad: Sendable {
    private let running = Atomic<Bool>(true)

    init(threads: Int) {
        for _ in 0..<threads {
            Thread.detachNewThread { [self] in
                var spin = 0
                while running.load(ordering: .relaxed) { spin &+= 1 }
                _ = spin
            }
        }
    }

    func stop() {
        running.store(false, ordering: .relaxed)
    }
}
