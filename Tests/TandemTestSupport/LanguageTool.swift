import Foundation
import TandemSubprocess

/// A checker of another language's files (node for JavaScript, luac and luacheck for Lua), run on text the
/// product builds into its binary. `scripts/test` installs each tool and sets the tool's `TANDEM_REQUIRE_…`
/// variable, so there a missing tool fails the test; elsewhere the test is skipped.
public struct LanguageTool: Sendable {
    /// The tool's executable, the first of its candidate paths that exists.
    public let executable: String?
    /// Whether the environment requires the tool (`scripts/test` installed it).
    public let isRequired: Bool

    /// A tool at the first of `candidates` that is executable, required when `requiredBy` is set.
    public init(_ candidates: [String], requiredBy variable: String) {
        executable = candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
        isRequired = ProcessInfo.processInfo.environment[variable] != nil
    }

    /// Whether a test of this tool runs: the tool is there, or it is required (and its absence fails).
    public var shouldRun: Bool { executable != nil || isRequired }

    /// Writes `text` to a file named `name` in a fresh temporary folder and runs the tool with `arguments`
    /// and the file's path last. Returns the exit status and what the tool printed (output, then errors).
    public func check(_ text: String, named name: String, arguments: [String]) throws -> (status: Int32, output: String) {
        guard executable != nil else { throw LanguageToolMissing(candidates: name) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: file)
        return try run(arguments + [file.path])
    }

    /// Runs the tool with `arguments`. Returns the exit status and what it printed (output, then errors).
    public func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let executable else { throw LanguageToolMissing(candidates: arguments.joined(separator: " ")) }
        let process = try ChildProcess(executable: executable, arguments: arguments, standardOutput: .pipe, standardError: .pipe)
        let output = process.standardOutput?.readDataToEndOfFile() ?? Data()
        let errors = process.standardError?.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output + errors, as: UTF8.self))
    }
}

/// The environment requires a language tool that is not installed.
public struct LanguageToolMissing: Error, CustomStringConvertible {
    let candidates: String
    public var description: String { "the tool to check \(candidates) is required but not installed (scripts/test installs it)" }
}
