import CTandemSpawn
import Foundation
import TandemSynchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program started by the tests and tools (a `tandem serve`, a Python peer, nginx, Redis), through
/// `posix_spawn`.
///
/// Foundation's `Process.run()` reads past a directory entry name while it closes the parent's descriptors
/// (swift-corelibs-foundation#5472) and can crash the whole test process; this type leaves that walk to the C
/// library (`posix_spawn_file_actions_addclosefrom_np`). The child gets exactly descriptors 0–2, an empty
/// signal mask and default signal dispositions. Every member may be used from any thread.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// The parent's own descriptor of the same number.
        case inherit
        /// A new pipe; the parent's end is `standardInput` / `standardOutput` / `standardError`.
        case pipe
        /// An open descriptor of the parent's (it stays the caller's to close).
        case descriptor(Int32)
    }

    /// The child's process id.
    public let processIdentifier: Int32
    /// The writing end of the child's standard input, when it is a `.pipe`.
    public let standardInput: FileHandle?
    /// The reading end of the child's standard output, when it is a `.pipe`.
    public let standardOutput: FileHandle?
    /// The reading end of the child's standard error, when it is a `.pipe`.
    public let standardError: FileHandle?
    /// The raw `waitpid` status once the child is reaped.
    private let reaped = Locked<Int32?>(nil)

    /// Starts `executable` (a path; no `PATH` search) with `arguments`, in `environment` (the parent's when
    /// nil). Throws `ChildProcessError` when a pipe cannot be made or the program cannot be started.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        standardInput input: Stream = .null, standardOutput output: Stream = .null, standardError error: Stream = .null
    ) throws(ChildProcessError) {
        var toClose: [Int32] = []
        defer { for descriptor in toClose { close(descriptor) } }
        func childEnd(_ stream: Stream, number: Int32, parentReads: Bool) throws(ChildProcessError) -> (Int32, FileHandle?) {
            switch stream {
            case .inherit: return (number, nil)
            case .descriptor(let descriptor): return (descriptor, nil)
            case .null:
                let descriptor = open("/dev/null", O_RDWR | O_CLOEXEC)
                guard descriptor >= 0 else { throw ChildProcessError(executable, "could not open /dev/null for", errno) }
                toClose.append(descriptor)
                return (descriptor, nil)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard tandem_pipe_cloexec(&ends) == 0 else { throw ChildProcessError(executable, "could not create a pipe for", errno) }
                let (parent, child) = parentReads ? (ends[0], ends[1]) : (ends[1], ends[0])
                toClose.append(child)
                return (child, FileHandle(fileDescriptor: parent, closeOnDealloc: true))
            }
        }
        let (inputDescriptor, inputHandle) = try childEnd(input, number: 0, parentReads: false)
        let (outputDescriptor, outputHandle) = try childEnd(output, number: 1, parentReads: true)
        let (errorDescriptor, errorHandle) = try childEnd(error, number: 2, parentReads: true)

        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let result = tandem_spawn(executable, argv, envp, inputDescriptor, outputDescriptor, errorDescriptor, &pid)
        guard result == 0 else { throw ChildProcessError(executable, "could not start", result) }
        processIdentifier = pid
        standardInput = inputHandle
        standardOutput = outputHandle
        standardError = errorHandle
    }

    /// Whether the child has not exited yet (reaps it when it has).
    public var isRunning: Bool {
        reaped.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            let result = waitpid(processIdentifier, &raw, WNOHANG)
            if result == processIdentifier { status = raw }
            // ECHILD: someone else reaped it; its status is lost, but it is not running.
            if result == -1, errno == ECHILD { status = -1 }
            return status == nil
        }
    }

    /// Blocks until the child has exited.
    public func waitUntilExit() {
        while isRunning {
            // Waits without reaping, so `isRunning` on another thread never loses the status to this one.
            var info = siginfo_t()
            let result = waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT)
            if result == -1, errno != EINTR { return }
        }
    }

    /// The exit code of a child that exited, or the signal number of one that a signal ended (as
    /// Foundation's `Process.terminationStatus`); -1 while it runs.
    public var terminationStatus: Int32 {
        guard !isRunning, let raw = reaped.withLock({ $0 }), raw != -1 else { return -1 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    /// Whether a signal ended the child (false while it runs).
    public var wasKilledBySignal: Bool {
        guard !isRunning, let raw = reaped.withLock({ $0 }), raw != -1 else { return false }
        return raw & 0x7f != 0
    }

    /// Sends `signal` to the child unless it has been reaped (so a reused pid is never signalled).
    public func send(_ signal: Int32) {
        reaped.withLock { status in
            if status == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Sends SIGTERM.
    public func terminate() { send(SIGTERM) }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What failed, with the program and the system's reason.
    public let description: String

    init(_ executable: String, _ what: String, _ code: Int32) {
        description = "\(what) \(executable): \(String(cString: strerror(code)))"
    }
}
