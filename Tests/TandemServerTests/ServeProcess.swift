import Foundation

/// A `tandem serve` child process started by a test, with its standard output (standard error is dropped).
struct ServeProcess {
    let process: Process
    private let output: Pipe

    /// Starts the `tandem` binary built next to the tests with `arguments`, through `launcher` (e.g. `taskset`,
    /// which gets `launcherArguments` first) when given.
    static func start(_ arguments: [String], secret: String, launcher: URL? = nil, launcherArguments: [String] = []) throws -> ServeProcess {
        let binary = try CrashDurabilityTests.tandemBinary()
        let process = Process()
        if let launcher {
            process.executableURL = launcher
            process.arguments = launcherArguments + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        process.environment = ["TANDEM_SECRET": secret, "PATH": "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return ServeProcess(process: process, output: output)
    }

    /// Reads standard output until `done` holds for what was read, the output ends, or 20 s pass; returns the text.
    func read(until done: (String) -> Bool) -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !done(text) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    /// Reads standard output to its end (the process closed it, usually by exiting).
    func readToEnd() -> String {
        String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Sends SIGTERM and waits up to `seconds` for the process to exit, then kills it: a server that ignores the
    /// signal fails the test instead of hanging it. Returns whether it exited by itself.
    @discardableResult
    func terminate(within seconds: Double = 10) -> Bool {
        process.terminate()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        guard process.isRunning else { return true }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return false
    }
}
