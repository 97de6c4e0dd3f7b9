import Foundation
import Synchronization
import TandemSubprocess
import Testing

/// Runs the reference peers in `scripts/interop/` (the Python `websockets` package) for interop tests.
public enum InteropPython {
    /// The package root, found from this file's location (Tests/TandemTestSupport/…).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The path of a peer script in `scripts/interop/`.
    public static func script(_ name: String) -> String {
        packageRoot.appendingPathComponent("scripts/interop/\(name)").path
    }

    /// `TANDEM_PYTHON`, else `<package root>/.venv/bin/python`, provided it can import `module`.
    public static func interpreter(importing module: String = "websockets") throws -> String {
        let candidates: [String?] = [ProcessInfo.processInfo.environment["TANDEM_PYTHON"], packageRoot.appendingPathComponent(".venv/bin/python").path]
        for case let path? in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let probe = try ChildProcess(executable: path, arguments: ["-c", "import \(module)"])
            probe.waitUntilExit()
            if probe.terminationStatus == 0 { return path }
        }
        throw InteropSetupError()
    }
}

/// No Python with the `websockets` package was found.
public struct InteropSetupError: Error, CustomStringConvertible {
    public var description: String {
        "interop tests need Python with the pinned `websockets` package: run `scripts/test` once (it creates .venv) or set TANDEM_PYTHON"
    }
}

/// A Python peer running as a subprocess, its standard output collected line by line in the background.
public final class PythonPeer: Sendable {
    private let process: ChildProcess
    private let output = LockedText()
    private let errors = LockedText()

    public init(script: String, arguments: [String] = []) throws {
        process = try ChildProcess(executable: try InteropPython.interpreter(), arguments: [InteropPython.script(script)] + arguments,
                                   standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        Self.drain(process.standardOutput, into: output)
        Self.drain(process.standardError, into: errors)
    }

    private static func drain(_ handle: FileHandle?, into sink: LockedText) {
        guard let handle else { return }
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                let text = String(decoding: data, as: UTF8.self)
                sink.append(text)
            }
        }
    }

    /// Everything printed so far.
    public var stdout: String { output.text }
    /// Everything printed on standard error so far.
    public var stderr: String { errors.text }

    /// The port a peer server printed as "PORT <n>".
    public func port() async throws -> Int {
        try await eventually("python peer prints its port", timeout: .seconds(10)) { stdout.contains("\n") || !process.isRunning }
        let line = stdout.split(separator: "\n").first { $0.hasPrefix("PORT ") }
        return try #require(line.flatMap { Int($0.dropFirst(5)) }, "peer did not start: \(stderr)")
    }

    /// Waits (bounded) for the process to exit and returns its status.
    public func exitStatus(timeout: Duration = .seconds(20)) async throws -> Int32 {
        try await eventually("python peer exits", timeout: timeout) { !process.isRunning }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Asks a server peer to stop (closes its stdin) and waits for it.
    public func stop() {
        try? process.standardInput?.close()
        let deadline = Date().addingTimeInterval(3)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

/// Text appended by one thread and read by others.
public final class LockedText: Sendable {
    private let storage = Mutex("")
    /// Creates empty text.
    public init() {}
    /// Appends `text`.
    public func append(_ text: String) { storage.withLock { $0 += text } }
    /// Everything appended so far.
    public var text: String { storage.withLock { $0 } }
}
