#if canImport(CTandemSystem)
import CTandemSystem
#endif

/// Lowers a background thread's CPU priority, so that its work runs on what the event loops leave over.
///
/// Only for a thread no event loop waits for in normal operation: a waiter behind a starved thread would be
/// starved too. The journal's materializer qualifies (`JournaledRoomStore`: reads answer from a snapshot and
/// the records not stored yet; the lane takes the database lock only far behind); the WAL checkpointer does
/// not (the WAL rewind waits for its lock) and keeps the normal priority.
enum ThreadPriority {
    /// Sets the calling thread to nice 19 and then to Linux's `SCHED_IDLE` policy (nice 19 stays if that is
    /// refused).
    ///
    /// Why `SCHED_IDLE` rather than nice 19 alone: a core running a nice-19 thread still looks busy, so a
    /// waking thread (an event loop's peer, another process) is often placed on an event loop's core and
    /// preempts it; a core running only `SCHED_IDLE` work counts as idle. In the relay benchmark's (b) the
    /// loop was switched out involuntarily about a quarter less often (docs/bench/relays-profile.md).
    static func lowest() {
        #if canImport(CTandemSystem)
        _ = tandem_set_thread_nice(19)
        _ = tandem_set_thread_idle_policy()
        #endif
    }
}
