import Foundation
import Testing
import TandemSubprocess
#if canImport(Glibc)
import Glibc
#endif

/// Children started through `posix_spawn`: their streams, their exit, and what they do not inherit.
@Suite struct ChildProcessTests {
    @Test func theChildsOutputAndExitCodeReachTheParent() throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"],
                                     standardOutput: .pipe, standardError: .pipe)
        let output = String(decoding: child.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        let errors = String(decoding: child.standardError?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        child.waitUntilExit()
        #expect(output == "out\n")
        #expect(errors == "err\n")
        #expect(child.terminationStatus == 3)
        #expect(!child.wasKilledBySignal)
        #expect(!child.isRunning)
    }

    @Test func standardInputIsAPipeTheParentCanClose() throws {
        let child = try ChildProcess(executable: "/bin/cat", arguments: [], standardInput: .pipe, standardOutput: .pipe)
        child.standardInput?.write(Data("line\n".utf8))
        try child.standardInput?.close()
        #expect(child.standardOutput?.readDataToEndOfFile() == Data("line\n".utf8))
        child.waitUntilExit()
        #expect(child.terminationStatus == 0)
    }

    @Test func terminateEndsTheChildWithSIGTERM() throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
        #expect(child.isRunning)
        child.terminate()
        child.waitUntilExit()
        #expect(child.wasKilledBySignal)
        #expect(child.terminationStatus == SIGTERM)
        // A reaped child's pid may belong to another process by now: nothing is sent.
        child.send(SIGKILL)
    }

    @Test func theChildGetsOnlyItsStandardDescriptorsAndDefaultSignals() throws {
        // A descriptor the parent leaves inheritable, and a parent that ignores SIGPIPE and blocks SIGUSR1 on this thread.
        let leaked = open("/dev/null", O_RDONLY)
        defer { close(leaked) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        var blocked = sigset_t(), old = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR1)
        pthread_sigmask(SIG_BLOCK, &blocked, &old)
        defer { pthread_sigmask(SIG_SETMASK, &old, nil) }

        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "ls /proc/self/fd; exec grep -E '^Sig(Blk|Ign)' /proc/self/status"],
                                     standardOutput: .pipe)
        let lines = String(decoding: child.standardOutput?.readDataToEndOfFile() ?? Data(), as: UTF8.self).split(separator: "\n")
        child.waitUntilExit()
        let descriptors = Set(lines.compactMap { Int($0) })
        #expect(!descriptors.contains(Int(leaked)))
        #expect(descriptors.isSubset(of: [0, 1, 2, 3]), "the shell's own descriptors only: \(descriptors)")
        // Signals 1–31; the C library keeps 32 and 33 for itself.
        func standardSignals(_ field: String) -> UInt64? {
            lines.first { $0.hasPrefix(field + ":") }.flatMap { UInt64($0.split(separator: "\t").last ?? "", radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(standardSignals("SigBlk") == 0)
        #expect(standardSignals("SigIgn") == 0)
    }

    @Test func aProgramThatCannotStartThrowsItsReason() {
        #expect {
            _ = try ChildProcess(executable: "/nonexistent/program", arguments: [])
        } throws: { error in
            "\(error)" == "could not start /nonexistent/program: No such file or directory"
        }
    }

    @Test func waitingFromTwoThreadsKeepsTheStatus() async throws {
        let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "exit 7"])
        async let first: Void = Task.detached { child.waitUntilExit() }.value
        async let second: Void = Task.detached { while child.isRunning { usleep(100) } }.value
        _ = await (first, second)
        #expect(child.terminationStatus == 7)
    }
}
