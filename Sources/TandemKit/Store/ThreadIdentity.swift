#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A number unique to the calling thread among live threads, used to recognise a call made by
/// the thread that is running a reducer.
@usableFromInline
enum ThreadIdentity {
    /// The calling thread's identity; never 0.
    @inlinable
    static var current: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }
}
