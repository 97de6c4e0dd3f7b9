import Foundation
import Testing
import TandemProtocol
import TandemServer
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemClient

/// `tandem join --state DIR` with real processes: a join killed with SIGKILL while its patches are
/// unacknowledged (the server is stopped with SIGSTOP, so they sit in its socket) is started again on the
/// same folder with empty input, and every patch lands exactly once, in order.
@Suite(.serialized) struct JoinStateCrashTests {
    /// A running `tandem join` whose input stays open until it is killed.
    private final class JoinProcess: Sendable {
        let process: ChildProcess

        init(_ arguments: [String]) throws {
            process = try ChildProcess(executable: try ServeProcess.tandemBinary().path, arguments: ["join"] + arguments,
                                       standardInput: .pipe, standardOutput: .pipe)
        }

        func send(_ line: String) { process.standardInput?.write(Data((line + "\n").utf8)) }

        /// Waits for the exit (after a kill).
        func finish() async throws {
            try await offload { [self] in
                _ = process.standardOutput?.readDataToEndOfFile()
                process.waitUntilExit()
            }
        }
    }

    private func savedRev(in folder: String) -> Int64? {
        guard let data = FileManager.default.contents(atPath: "\(folder)/state.json"),
              let json = try? JSONValue.parse(Array(data)) else { return nil }
        return json["rev"]?.doubleValue.map { Int64($0) }
    }

    /// Whether every thread of `pid` is stopped (state `T` in `/proc/PID/task/*/stat`).
    private static func allThreadsStopped(_ pid: Int32) -> Bool {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task"), !tasks.isEmpty else { return false }
        return tasks.allSatisfy { task in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let end = stat.lastIndex(of: ")") else { return false }
            // After "pid (comm) ": the state letter.
            return stat[stat.index(end, offsetBy: 2)...].first == "T"
        }
    }

    private func pendingSeqs(in folder: String) -> [Int64?]? {
        guard let data = FileManager.default.contents(atPath: "\(folder)/state.json"),
              let json = try? JSONValue.parse(Array(data)), let pending = json["pending"]?.arrayValue else { return nil }
        return pending.map { $0["seq"]?.doubleValue.map { Int64($0) } }
    }

    @Test func aKilledJoinResendsItsUnacknowledgedPatchesExactlyOnceInOrder() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-crash-\(UUID().uuidString)").path
        let folder = data + "-join"
        defer {
            try? FileManager.default.removeItem(atPath: data)
            try? FileManager.default.removeItem(atPath: folder)
        }
        let secret = "crash"
        let (server, url) = try await offload { try ServeProcess.serve(data: data, secret: secret) }
        defer { kill(server.processIdentifier, SIGCONT); server.terminate(); server.waitUntilExit() }
        let tokens = TokenVerifier(secret: Array(secret.utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) },
                                   now: { Int64(Date().timeIntervalSince1970) })
        func token(_ user: String) -> String { tokens.mint(TokenClaims(sub: user, room: "shop", role: .host, exp: tokens.currentTime + 600)) }
        func line(_ n: Int) -> String { #"[{"op":"set","path":"/i\#(n)","value":\#(n)},{"op":"set","path":"/last","value":\#(n)}]"# }
        let arguments = ["--url", url, "--token", token("alice"), "--state", folder, "--drain-timeout", "30"]

        let first = try JoinProcess(arguments)
        for n in 1...3 { first.send(line(n)) }
        // Acknowledged means confirmed at rev 3 with nothing pending (a state saved before the lines were read has no
        // pending patches either).
        #expect(await eventually { pendingSeqs(in: folder) == [] && savedRev(in: folder) == 3 }, "the first three are acknowledged")
        // The server stops reading: the next patches are sent and stay unacknowledged.
        kill(server.processIdentifier, SIGSTOP)
        // `kill` returns before every thread has stopped: a server thread still running on the other core
        // could acknowledge patch 4.
        #expect(await eventually { Self.allThreadsStopped(server.processIdentifier) }, "the server stops")
        for n in 4...6 { first.send(line(n)) }
        #expect(await eventually { pendingSeqs(in: folder) == [4, 5, 6] }, "bound to their seqs on disk: \(String(describing: pendingSeqs(in: folder)))")
        kill(first.process.processIdentifier, SIGKILL)
        try await first.finish()
        kill(server.processIdentifier, SIGCONT)

        // Started again on the folder with no input: it resumes and settles what it had.
        let second = try await TandemRun.run(["join"] + arguments)
        #expect(second.status == 0, "tandem join failed: \(second.stderr)")
        #expect(second.events("state").last?["pending"] == 0)

        // Another participant sees each patch once: six revs, the last one last.
        let observer = try await TandemRun.run(["join", "--url", url, "--token", token("bob"), "--drain-timeout", "30"])
        let final = observer.events("state").last
        #expect(final?["rev"] == 6, "one rev per patch: \(String(describing: final))")
        #expect(final?["state"] == ["i1": 1, "i2": 2, "i3": 3, "i4": 4, "i5": 5, "i6": 6, "last": 6])
    }

    @Test func aFolderInUseIsRefusedWithAClearError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-locked-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let held = try FileSyncPersistence(folder: folder)
        let join = try await TandemRun.run(["join", "--url", "ws://127.0.0.1:1/v1/sync", "--token", "t", "--state", folder])
        #expect(join.status == 1)
        #expect(join.stderr.contains("used by another session"), "\(join.stderr)")
        _ = held
    }
}
