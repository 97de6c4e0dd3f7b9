import Foundation
import Testing
import TandemProtocol
import TandemTestSupport

/// docs/ARCHITECTURE.md draws the module graph; this keeps the drawing true to Package.swift.
@Suite("The architecture document")
struct ArchitectureDocTests {
    /// One target's dependencies: every one, and those under a platform condition (Linux).
    struct Edges: Equatable, CustomStringConvertible {
        var all: Set<String>
        var conditional: Set<String>
        var description: String { "\(all.sorted()) (Linux only: \(conditional.sorted()))" }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every target but the tests, with its dependencies, as SwiftPM reads Package.swift.
    static func package() throws -> [String: Edges] {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }
        let swift = LanguageTool(path, requiredBy: "PATH")
        // Its own scratch folder: the suite's `swift test` holds the lock of `.build`.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let (status, output) = try swift.run(["package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"])
        guard status == 0, let json = output.firstIndex(of: "{").map({ String(output[$0...]) }) else {
            throw ArchitectureDocError("swift package dump-package failed (\(status)): \(output)")
        }
        guard case .array(let targets)? = try JSONValue.parse(Array(json.utf8))["targets"] else { throw ArchitectureDocError("no targets") }
        var graph: [String: Edges] = [:]
        for target in targets where target["type"]?.stringValue != "test" {
            guard let name = target["name"]?.stringValue else { continue }
            var edges = Edges(all: [], conditional: [])
            if case .array(let dependencies)? = target["dependencies"] {
                for case .object(let dependency) in dependencies {
                    guard let (kind, value) = dependency.first, case .array(let parts) = value, let dependencyName = parts.first?.stringValue else { continue }
                    edges.all.insert(dependencyName)
                    if kind == "target" || kind == "byName", parts.count > 1, parts[1] != .null { edges.conditional.insert(dependencyName) }
                }
            }
            graph[name] = edges
        }
        return graph
    }

    /// The graph as the document draws it: the first fenced block, one `names → dependencies` line per
    /// target (conditional ones after `Linux:`).
    static func drawn(known: Set<String>) throws -> [String: Edges] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let fences = text.components(separatedBy: "```")
        guard fences.count > 2 else { throw ArchitectureDocError("no fenced block") }
        func names(_ text: Substring) -> Set<String> {
            Set(text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter(known.contains))
        }
        var graph: [String: Edges] = [:]
        for line in fences[1].split(separator: "\n") {
            let sides = line.split(separator: "→", maxSplits: 1)
            guard sides.count == 2 else { throw ArchitectureDocError("a line without an arrow: \(line)") }
            let linux = sides[1].range(of: "Linux:").map { sides[1][$0.upperBound...] } ?? ""
            let edges = Edges(all: names(sides[1]), conditional: names(linux))
            for name in names(sides[0]) {
                #expect(graph[name] == nil, "\(name) is drawn twice")
                graph[name] = edges
            }
        }
        return graph
    }

    @Test func theModuleGraphItDrawsIsThePackages() throws {
        let package = try Self.package()
        #expect(package.count > 20, "the package has its targets")
        let drawn = try Self.drawn(known: Set(package.keys))
        for (name, edges) in package.sorted(by: { $0.key < $1.key }) {
            #expect(drawn[name] == edges, "\(name): Package.swift says \(edges), the document \(drawn[name].map(\.description) ?? "nothing")")
        }
        #expect(Set(drawn.keys) == Set(package.keys))
    }

    @Test func theWalkOfOnePatchNamesOneModulePerStep() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/ARCHITECTURE.md"), encoding: .utf8)
        let modules = Set(try Self.package().keys)
        guard let start = text.range(of: "| step | module | file | thread |") else {
            Issue.record("the walk's table has a module column")
            return
        }
        let rows = text[start.upperBound...].split(separator: "\n").dropFirst().prefix { $0.hasPrefix("|") }
        #expect(rows.count >= 8)
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, modules.contains(cells[1]) else {
                Issue.record("one module per step: \(row)")
                continue
            }
            // Every file the step names is in that module.
            let paths = cells[2].split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                .filter { $0.hasSuffix(".swift") || $0.hasSuffix("/") }
            #expect(!paths.isEmpty, "the step names its files: \(row)")
            for path in paths {
                let url = Self.root.appendingPathComponent("Sources/\(cells[1])/\(path)")
                #expect(FileManager.default.fileExists(atPath: url.path), "\(cells[1])/\(path) exists")
            }
        }
    }
}

struct ArchitectureDocError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
