import Foundation
import TandemProtocol

/// A run of the `tandem` binary to its end, with standard input given up front.
public struct TandemRun: Sendable {
    /// The exit status.
    public let status: Int32
    /// Everything printed on standard output.
    public let stdout: String
    /// Everything printed on standard error.
    public let stderr: String

    /// Runs `tandem` with `arguments`, writes `input` as lines and closes standard input, and waits for
    /// the exit off the concurrency pool.
    public static func run(_ arguments: [String], input: [String] = []) async throws -> TandemRun {
        let process = Process()
        process.executableURL = try ServeProcess.tandemBinary()
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        for line in input { stdin.fileHandleForWriting.write(Data((line + "\n").utf8)) }
        try stdin.fileHandleForWriting.close()
        return try await offload {
            let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return TandemRun(status: process.terminationStatus, stdout: out, stderr: err)
        }
    }

    /// The JSON lines of standard output whose `event` is `event`, in order (for `tandem join`).
    public func events(_ event: String) -> [JSONValue] {
        stdout.split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)) }.filter { $0["event"] == .string(event) }
    }
}
