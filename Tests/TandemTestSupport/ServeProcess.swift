import Foundation
import TandemSubprocess

/// A `tandem serve` child process started by a test, with its standard output (and standard error when asked
/// for; otherwise it is dropped). One test task reads it at a time.
public struct ServeProcess: Sendable {
    /// The child process.
    public let process: ChildProcess

    /// The `tandem` executable next to the test bundle (built by `swift build --build-tests`).
    public static func tandemBinary() throws -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [bundle, bundle.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("tandem")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ServeProcessError("the tandem executable was not found next to \(bundle.path); run `swift build --build-tests` (scripts/test does) first")
    }

    /// Starts `tandem serve` on a free port with the data folder `data` and `extra` arguments; returns the process
    /// once it listens, with its sync URL (`wss://` when `extra` asks for TLS).
    public static func serve(data: String, secret: String, extra: [String] = []) throws -> (ChildProcess, String) {
        // Where the server writes its URL once it serves (`--ready-file`): read, not scraped from the banner.
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-ready-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: ready) }
        let server = try start(["serve", "--port", "0", "--data", data, "--rate-limit", "0", "--log-level", "error", "--ready-file", ready] + extra,
                               secret: secret)
        // The banner follows the file: once output arrives after it, the file is there.
        let text = server.read { _ in FileManager.default.fileExists(atPath: ready) }
        if let bytes = FileManager.default.contents(atPath: ready),
           let fields = try? JSONSerialization.jsonObject(with: bytes) as? [String: Any], let url = fields["url"] as? String {
            return (server.process, url)
        }
        server.process.terminate()
        throw ServeProcessError("tandem serve did not write its --ready-file; output: \(text)")
    }

    /// The sync URL in a `tandem serve` banner (`ws://` or `wss://`), once its `listening` line is out.
    public static func listeningURL(in banner: String) -> String? {
        guard let line = banner.split(separator: "\n").first(where: { $0.contains("listening") }) else { return nil }
        return line.split(separator: " ").first(where: { $0.hasPrefix("ws://") || $0.hasPrefix("wss://") }).map(String.init)
    }

    /// The port of a `ws[s]://HOST:PORT/…` URL on a loopback address.
    public static func port(of url: String) -> Int? {
        url.split(separator: ":").dropFirst(2).first.flatMap { Int($0.prefix { $0.isNumber }) }
    }

    /// Starts the `tandem` binary built next to the tests with `arguments`, through `launcher` (e.g. `taskset`,
    /// which gets `launcherArguments` first) when given.
    public static func start(_ arguments: [String], secret: String, launcher: URL? = nil, launcherArguments: [String] = [],
                             capturesErrors: Bool = false) throws -> ServeProcess {
        let binary = try tandemBinary()
        let process = try ChildProcess(
            executable: launcher?.path ?? binary.path,
            arguments: launcher == nil ? arguments : launcherArguments + [binary.path] + arguments,
            environment: ["TANDEM_SECRET": secret, "PATH": "/usr/bin:/bin"],
            standardOutput: .pipe, standardError: capturesErrors ? .pipe : .null
        )
        return ServeProcess(process: process)
    }

    /// Reads standard output until `done` holds for what was read, the output ends, or 20 s pass; returns the text.
    public func read(until done: (String) -> Bool) -> String {
        Self.read(process.standardOutput, until: done)
    }

    /// Reads standard error (started with `capturesErrors`) like `read(until:)`.
    public func readErrors(until done: (String) -> Bool) -> String {
        Self.read(process.standardError, until: done)
    }

    private static func read(_ handle: FileHandle?, until done: (String) -> Bool) -> String {
        guard let handle else { return "" }
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !done(text) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Reads standard output to its end (the process closed it, usually by exiting).
    public func readToEnd() -> String {
        String(decoding: process.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    }

    /// Sends SIGTERM and waits up to `seconds` for the process to exit, then kills it: a server that ignores the
    /// signal fails the test instead of hanging it. Returns whether it exited by itself.
    @discardableResult
    public func terminate(within seconds: Double = 10) -> Bool {
        process.terminate()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard process.isRunning else { return true }
        process.send(SIGKILL)
        process.waitUntilExit()
        return false
    }
}

/// A `tandem` child process could not be started or did not come up.
public struct ServeProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
