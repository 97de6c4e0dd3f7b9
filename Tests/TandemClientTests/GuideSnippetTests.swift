import Foundation
import Testing
import TandemTestSupport

/// The guides' Swift snippets are compiled: each one stands in `GuideSnippets.swift` line for line
/// (indentation aside), unless it is marked `// Apple platforms` (SwiftUI, UIKit, Network) or is a
/// `// Package.swift` fragment.
@Suite struct GuideSnippetTests {
    private static let exempt = ["// Apple platforms", "// Package.swift"]

    /// The Swift code blocks of a Markdown file, each as its trimmed lines.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    @Test(arguments: ["docs/CLIENT.md", "docs/TLS.md"])
    func everyPortableSnippetIsCompiled(guide: String) throws {
        let root = InteropPython.packageRoot
        let markdown = try String(contentsOf: root.appendingPathComponent(guide), encoding: .utf8)
        let compiled = try String(contentsOf: root.appendingPathComponent("Tests/TandemClientTests/GuideSnippets.swift"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let blocks = Self.swiftBlocks(in: markdown)
        #expect(!blocks.isEmpty)
        for block in blocks where !Self.exempt.contains(where: { block.first?.hasPrefix($0) == true }) {
            let lines = block.filter { !$0.isEmpty }
            let found = compiled.indices.contains { start in
                var index = start
                for line in lines {
                    while index < compiled.count, compiled[index].isEmpty { index += 1 }
                    guard index < compiled.count, compiled[index] == line else { return false }
                    index += 1
                }
                return true
            }
            #expect(found, "a snippet of \(guide) is not in GuideSnippets.swift:\n\(lines.joined(separator: "\n"))")
        }
    }

    /// The testing section's snippets run as shown (a real server, then the in-process network cut and back).
    @Test func theTestingSnippetsRun() async throws {
        try await GuideSnippets.testServer()
        try await GuideSnippets.inProcessNetwork()
    }

    /// The issue's measure of the app layer: the seed's whole page is at most 40 lines of glue (the
    /// model that wires the room, scroll sync, nav bar and toast; the app's state type is not glue).
    @Test func theSeedsPageIsAtMostFortyLinesOfGlue() throws {
        let markdown = try String(contentsOf: InteropPython.packageRoot.appendingPathComponent("docs/CLIENT.md"), encoding: .utf8)
        let section = try #require(markdown.components(separatedBy: "## The seed's page, wired").dropFirst().first)
        let block = try #require(Self.swiftBlocks(in: section).first)
        let glue = block.drop { !$0.hasPrefix("@MainActor final class") }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
        #expect(!glue.isEmpty)
        #expect(glue.count <= 40, "the seed's page takes \(glue.count) lines of glue")
    }
}
