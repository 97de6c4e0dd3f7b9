import Testing
import TandemTestSupport
@testable import TandemServer
@testable import TandemClient

/// The web client library the server serves (`/client/v1/tandem-sync.mjs`): its unit tests under node's test
/// runner (`Tests/WebClientTests`, which run the patch vectors the Swift tests run too), and the choices it
/// shares with the Swift client.
@Suite struct WebClientTests {
    static let node = LanguageTool(["/usr/bin/node", "/usr/local/bin/node"], requiredBy: "TANDEM_REQUIRE_NODE")

    @Test(.enabled(if: node.shouldRun, "node is not installed (scripts/test installs nodejs)"))
    func itsUnitTestsPassUnderNode() throws {
        let folder = InteropPython.packageRoot.appendingPathComponent("Tests/WebClientTests").path
        let result = try Self.node.run(["--test", folder])
        #expect(result.status == 0, "node --test: \(result.output)")
        #expect(result.output.contains("# fail 0"))
    }

    @Test func itKeepsAsFewPatchesInFlightAsTheSwiftClient() throws {
        let library = try #require(PageRoutes.assets["/client/v1/tandem-sync.mjs"]).text
        let line = try #require(library.split(separator: "\n").first { $0.hasPrefix("const MAX_IN_FLIGHT = ") })
        #expect(line == "const MAX_IN_FLIGHT = \(SyncEngineConfiguration().maxInFlight);")
    }
}
