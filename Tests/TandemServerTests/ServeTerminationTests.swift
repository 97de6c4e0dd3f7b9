import Foundation
import Testing
import TandemTestSupport

/// The real `tandem serve` shuts down gracefully on SIGTERM, even one sent the moment its banner is out.
@Suite struct ServeTerminationTests {
    @Test func aSIGTERMSentAsSoonAsTheBannerIsOutShutsTheServerDown() async throws {
        // A signal that arrived between the banner and the server watching for signals used to be lost; a few
        // tries make that window likelier to be hit if it comes back.
        for _ in 0..<3 {
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
