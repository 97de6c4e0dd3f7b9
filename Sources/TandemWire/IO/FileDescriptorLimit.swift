#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`); every connection uses one.
package struct FileDescriptorLimit: Sendable, Equatable, CustomStringConvertible {
    /// The limit in force (the soft limit).
    package var soft: UInt64
    /// The ceiling an unprivileged process may raise the soft limit to.
    package var hard: UInt64

    /// Reads the current limits.
    package static func current() throws -> FileDescriptorLimit {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { throw IOError.lastError("getrlimit(RLIMIT_NOFILE)") }
        return FileDescriptorLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit (a server calls this once at start so thousands of connections
    /// fit) and returns the limits now in force. On Darwin an unlimited hard limit is capped at `OPEN_MAX`.
    @discardableResult
    package static func raiseSoftLimitToHard() throws -> FileDescriptorLimit {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { throw IOError.lastError("getrlimit(RLIMIT_NOFILE)") }
        var target = limit.rlim_max
        #if !os(Linux)
        if target == RLIM_INFINITY || target > rlim_t(OPEN_MAX) { target = rlim_t(OPEN_MAX) }
        #endif
        if limit.rlim_cur < target {
            limit.rlim_cur = target
            guard setrlimit(resourceNoFile, &limit) == 0 else { throw IOError.lastError("setrlimit(RLIMIT_NOFILE)") }
        }
        return try current()
    }

    /// The limits as text, e.g. `open files: soft 1024, hard 524288`.
    package var description: String { "open files: soft \(soft), hard \(hard)" }

    #if os(Linux)
    private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
