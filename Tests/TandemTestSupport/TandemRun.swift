import Foundation
import TandemProtocol
import TandemSubprocess

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
        let process = try ChildProcess(executable: try ServeProcess.tandemBinary().path, arguments: arguments,
                                       standardInput: .pipe, standardOutput: .pipe, standardError: .pipe)
        for line in input { process.standardInput?.write(Data((line + "\n").utf8)) }
        try process.standardInput?.close()
        return try await offload {
            let out = String(decoding: process.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            let err = String(decoding: process.standardError?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            process.waitUntilExit()
            return TandemRun(status: process.terminationStatus, stdout: out, stderr: err)
        }
    }

    /// The JSON lines of standard output whose `event` is `event`, in order (for `tandem join`).
    public func events(_ event: String) -> [JSONValue] {
        stdout.split(separator: "\n").compactMap { try? JSONValue.parse(Array($0.utf8)) }.filter { $0["event"] == .string(event) }
    }
}
