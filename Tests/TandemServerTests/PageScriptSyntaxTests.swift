import Testing
import TandemTestSupport
@testable import TandemServer

/// Every script the page serves parses as JavaScript: node's own parser (`node --check`) reads each one as
/// the browser gets it. `scripts/test` installs nodejs and requires it; elsewhere the test is skipped
/// without node.
@Suite struct PageScriptSyntaxTests {
    static let node = LanguageTool(["/usr/bin/node", "/usr/local/bin/node"], requiredBy: "TANDEM_REQUIRE_NODE")

    @Test(.enabled(if: node.shouldRun, "node is not installed (scripts/test installs nodejs)"))
    func everyScriptOfThePageParses() throws {
        let scripts = PageRoutes.assets.values.filter { $0.contentType.hasPrefix("text/javascript") }
        #expect(scripts.count >= 3, "the page's scripts")
        for script in scripts {
            let result = try Self.node.check(script.text, named: String(script.path.split(separator: "/").last ?? "script.js"), arguments: ["--check"])
            #expect(result.status == 0, "\(script.path) does not parse: \(result.output)")
        }
    }
}
