#if canImport(CTandemSystem)
import CTandemSystem
#endif
import Foundation

/// Lowers the calling thread's scheduling priority, for storage maintenance (materializing the journal,
/// checkpointing the WAL) that no client waits for.
///
/// Why: on a machine with few cores such a thread, woken while the event loops and other processes keep
/// every core busy, would take a core from a loop for the length of a transaction and delay the messages
/// in flight; at a lower priority it runs in the gaps. It still gets its share, so it never falls behind
/// for good under steady load. Lowering needs no privileges; a failure leaves the priority as it was.
enum BackgroundPriority {
    /// The Linux nice value the thread gets (0 is normal, 19 the lowest).
    static let niceValue: Int32 = 10

    /// Applies to the calling thread only.
    static func lowerCurrentThread() {
        #if canImport(CTandemSystem)
        // On Linux a nice value belongs to a thread (a task), named by its thread id.
        _ = tandem_set_thread_nice(niceValue)
        #else
        Thread.current.qualityOfService = .utility
        #endif
    }
}
