#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CTandemSystem
#endif

/// Thin wrappers over the BSD socket calls the I/O layer uses. Every socket it creates is non-blocking and
/// close-on-exec; every failure becomes an `IOError` carrying `errno`.
enum Socket {
    /// A new non-blocking, close-on-exec TCP socket of `family`.
    static func makeStream(family: Int32) throws -> Int32 {
        #if os(Linux)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(family, type, 0)
        guard fd >= 0 else { throw IOError.lastError("socket") }
        #else
        let fd = socket(family, SOCK_STREAM, 0)
        guard fd >= 0 else { throw IOError.lastError("socket") }
        do {
            try configureInherited(fd)
            try setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1, what: "SO_NOSIGPIPE")
        } catch {
            _ = systemClose(fd)
            throw error
        }
        #endif
        return fd
    }

    /// Makes a descriptor non-blocking and close-on-exec, for platforms that cannot set both at creation
    /// (Linux does, in `socket` and `accept4`).
    static func configureInherited(_ fd: Int32) throws {
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw IOError.lastError("fcntl(O_NONBLOCK)") }
        guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0 else { throw IOError.lastError("fcntl(FD_CLOEXEC)") }
    }

    /// Sets an integer socket option.
    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32, what: String) throws {
        var value = value
        guard setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw IOError.lastError("setsockopt(\(what))")
        }
    }

    /// Disables Nagle's algorithm so small frames leave at once.
    static func setNoDelay(_ fd: Int32) throws {
        try setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1, what: "TCP_NODELAY")
    }

    /// Makes the next `close` send a reset (RST) instead of a FIN, discarding unsent data.
    static func setLingerZero(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// The pending error of a socket (`SO_ERROR`), 0 when none; reading it clears it.
    static func pendingError(_ fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { return currentErrno() }
        return code
    }

    /// The local address a socket is bound to.
    static func localAddress(_ fd: Int32) throws -> SocketAddress {
        try address(of: fd, operation: "getsockname", call: getsockname)
    }

    /// The address of the connected peer.
    static func peerAddress(_ fd: Int32) throws -> SocketAddress {
        try address(of: fd, operation: "getpeername", call: getpeername)
    }

    private static func address(
        of fd: Int32,
        operation: String,
        call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) throws -> SocketAddress {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) }
        }
        guard status == 0 else { throw IOError.lastError(operation) }
        let parsed = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SocketAddress($0) }
        }
        guard let parsed else { throw IOError.system(operation: operation, errno: EAFNOSUPPORT) }
        return parsed
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec descriptor; nil when none is pending.
    static func accept(_ listenFD: Int32) throws -> Int32? {
        while true {
            let fd = acceptConfigured(listenFD)
            if fd >= 0 { return fd }
            let code = currentErrno()
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            // The peer gave up before we accepted (or configuring its socket failed): nothing to hand out, keep going.
            case ECONNABORTED, EPROTO: continue
            default: throw IOError.system(operation: "accept", errno: code)
            }
        }
    }

    /// One accept whose descriptor is already non-blocking and close-on-exec: `accept4` on Linux sets both
    /// atomically; elsewhere the flags (and `SO_NOSIGPIPE`) are set right after. Returns -1 with `errno` set.
    private static func acceptConfigured(_ listenFD: Int32) -> Int32 {
        #if os(Linux)
        return tandem_accept_nonblocking(listenFD)
        #else
        let fd = Darwin.accept(listenFD, nil, nil)
        guard fd >= 0 else { return fd }
        do {
            try configureInherited(fd)
            try setOption(fd, level: SOL_SOCKET, name: SO_NOSIGPIPE, value: 1, what: "SO_NOSIGPIPE")
        } catch {
            _ = systemClose(fd)
            errno = ECONNABORTED
            return -1
        }
        return fd
        #endif
    }
}

/// `close(2)`, named apart from the many `close()` methods in this module.
@inline(__always)
func systemClose(_ fd: Int32) -> Int32 {
    close(fd)
}
