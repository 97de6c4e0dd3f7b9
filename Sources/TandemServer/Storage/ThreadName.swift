#if canImport(CTandemSystem)
import CTandemSystem
#endif
import Foundation

/// Names storage threads where `top -H`, `ps -L` and `perf` show them.
///
/// Foundation's `Thread.name` is not the kernel's thread name on Linux.
enum ThreadName {
    /// Names the calling thread (cut to the kernel's 15 bytes).
    static func set(_ name: String) {
        #if canImport(CTandemSystem)
        _ = tandem_set_thread_name(name)
        #else
        Thread.current.name = name
        #endif
    }
}
