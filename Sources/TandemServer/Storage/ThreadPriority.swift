#if canImport(CTandemSystem)
import CTandemSystem
#endif

/// Lowers a background thread's CPU priority, so that its work runs on what the event loops leave over.
///
/// Only for a thread nobody waits for: a waiter behind a starved nice-19 thread would be starved too. The
/// journal's materializer qualifies because every caller that needs its work done does it itself
/// (`JournaledRoomStore`); the WAL checkpointer does not (the WAL rewind waits for its lock) and keeps the
/// normal priority.
enum ThreadPriority {
    /// Sets the calling thread to nice 19, the lowest; a failure (a platform without per-thread nice
    /// values) leaves it at the normal priority.
    static func lowest() {
        #if canImport(CTandemSystem)
        _ = tandem_set_thread_nice(19)
        #endif
    }
}
