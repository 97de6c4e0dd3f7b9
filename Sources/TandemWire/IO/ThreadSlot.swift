#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread reference to an object the thread itself keeps alive while it is set (the slot holds it
/// unretained): which event loop a thread runs, which wake-up batch it has open.
///
/// Thread-safety: each thread sees only its own value; the slot itself is immutable once created.
struct ThreadSlot<Object: AnyObject>: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The calling thread's object, if it set one.
    var value: Object? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<Object>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Sets (or, with nil, clears) the calling thread's object; the caller keeps it alive until cleared.
    func set(_ object: Object?) {
        pthread_setspecific(key, object.map { Unmanaged.passUnretained($0).toOpaque() })
    }
}
