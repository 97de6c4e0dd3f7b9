#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes its output: standard output for results, standard error for
/// diagnostics. Injected so that commands run in tests without touching the process's streams.
public protocol Console: Sendable {
    /// Writes one line (a newline is appended) to standard output.
    func out(_ line: String)
    /// Writes one line (a newline is appended) to standard error.
    func err(_ line: String)
}

/// The process's own standard output and error. Each line goes out in one unbuffered
/// `write(2)` loop, so piped readers see it at once and lines from tasks never interleave mid-line.
public struct StandardConsole: Console {
    /// Creates the console.
    public init() {}

    /// Writes one line to standard output (file descriptor 1).
    public func out(_ line: String) { Self.write(line, to: 1) }

    /// Writes one line to standard error (file descriptor 2).
    public func err(_ line: String) { Self.write(line, to: 2) }

    private static func write(_ line: String, to descriptor: Int32) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif
