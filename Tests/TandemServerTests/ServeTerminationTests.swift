import Foundation
import Testing
import TandemTestSupport

/// The real `tandem serve` shuts down gracefully on SIGTERM, even one sent the moment its banner is out.
@Suite struct ServeTerminationTests {
    @Test func aSIGTERMSentAsSoonAsTheBannerIsOutShutsTheServerDown() async throws {
        // Signals sent the moment the banner appears, many times: a window in which a signal is ignored or not
        // yet watched for would be hit. (A busy machine widens such a window; loading it here would disturb the
        // timing of the suites running alongside.)
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
