import Foundation
import Testing
import TandemSubprocess
@testable import TandemServer

/// Every script the page serves parses as JavaScript: node's own parser (`node --check`) reads each one as
/// the browser gets it. `scripts/test` installs nodejs and requires it; elsewhere the test is skipped
/// without node.
@Suite struct PageScriptSyntaxTests {
    static let node = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let required = ProcessInfo.processInfo.environment["TANDEM_REQUIRE_NODE"] != nil

    @Test(.enabled(if: node != nil || required, "node is not installed (scripts/test installs nodejs)"))
    func everyScriptOfThePageParses() throws {
        let node = try #require(Self.node, "node is required (TANDEM_REQUIRE_NODE) but not installed")
        let scripts = PageRoutes.assets.values.filter { $0.contentType.hasPrefix("text/javascript") }
        #expect(scripts.count >= 3, "the page's scripts")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for script in scripts {
            let file = folder.appendingPathComponent(String(script.path.split(separator: "/").last ?? "script.js"))
            try Data(script.body).write(to: file)
            let process = try ChildProcess(executable: node, arguments: ["--check", file.path], standardError: .pipe)
            let errors = String(decoding: process.standardError?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(script.path) does not parse: \(errors)")
        }
    }
}
