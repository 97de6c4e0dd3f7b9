#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a mutual-exclusion lock: Swift's `Mutex` as a class, for every platform the package's apps
/// run on (`Mutex` needs iOS 18 / macOS 15). A POSIX mutex that checks its owner, so taking it again on the
/// thread that holds it stops the program at once, as `Mutex` does, instead of hanging.
public final class Locked<Value>: @unchecked Sendable {
    // `@unchecked`: `value` is only reached between lock and unlock; values go in and out as `sending`.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    /// A lock around `value`.
    public init(_ value: sending Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let status = pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        precondition(status == 0, "pthread_mutex_init failed (\(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    @inlinable
    public func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        let status = pthread_mutex_lock(mutex)
        precondition(status == 0, status == EDEADLK ? "Recursive call to lock Locked" : "pthread_mutex_lock failed (\(status))")
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
