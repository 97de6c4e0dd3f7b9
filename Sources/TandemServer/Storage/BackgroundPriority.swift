#if canImport(CTandemSystem)
import CTandemSystem
#endif
import Foundation

/// Makes the calling thread a background one: storage work that no client waits for (materializing the
/// journal).
///
/// Why: on a machine with few cores such a thread, woken while the event loops and other processes keep
/// every core busy, would take a core from a loop for the length of a transaction and delay the messages
/// in flight; at a lower priority it runs in the gaps. It still gets its share, so it does not fall
/// behind for good under steady load. Lowering needs no privileges; a failure leaves the priority as it
/// was (the thread works the same, only less politely).
enum BackgroundPriority {
    /// The Linux nice value the thread gets (0 is normal, 19 the lowest). 19 measured better than 10 in the
    /// relay benchmark (durable (b) p99 1.56–2.61 against 2.13–3.25 ms, alternating); SCHED_IDLE was erratic
    /// (1.50–9.67 ms).
    static let niceValue: Int32 = 19

    /// Lowers the calling thread's priority and names it (see `name(_:)`).
    static func enter(name: String) {
        #if canImport(CTandemSystem)
        // On Linux a nice value belongs to a thread (a task), not to the process.
        _ = tandem_set_thread_nice(niceValue)
        #else
        Thread.current.qualityOfService = .utility
        #endif
        Self.name(name)
    }

    /// Gives the calling thread `name` where `top -H`, `ps -L` and `perf` show it (Foundation's
    /// `Thread.name` is not the kernel's thread name on Linux; cut to 15 bytes). Priority unchanged.
    static func name(_ name: String) {
        #if canImport(CTandemSystem)
        _ = tandem_set_thread_name(name)
        #else
        Thread.current.name = name
        #endif
    }
}
