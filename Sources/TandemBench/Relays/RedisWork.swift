/// What Redis did for a cluster deployment over a measuring window, from two `INFO commandstats` readings:
/// sequencer script runs, patches appended to room logs, and reads of the logs by the followers.
struct RedisWork: Sendable, Equatable {
    /// `EVALSHA` + `EVAL`: one per batch a node sends for a room (group commit), a `behind` retry included.
    var scripts: Int
    /// `XADD`: patches appended, one per rev.
    var appends: Int
    /// `XRANGE` + `XREAD`: log reads (followers read a log only after a subscription, a reconnect or a gap;
    /// their patches come in the change messages).
    var reads: Int

    /// The difference between two readings (`end` minus `start`); nil when either is missing.
    init?(from start: [String: Int]?, to end: [String: Int]?) {
        guard let start, let end else { return nil }
        func delta(_ names: String...) -> Int { names.reduce(0) { $0 + (end[$1] ?? 0) - (start[$1] ?? 0) } }
        self.init(scripts: delta("evalsha", "eval"), appends: delta("xadd"), reads: delta("xread", "xrange"))
    }

    init(scripts: Int, appends: Int, reads: Int) {
        self.scripts = scripts
        self.appends = appends
        self.reads = reads
    }

    /// Script runs per appended patch: below 1 when batches carry several patches; `behind` retries add to it.
    var scriptsPerAppend: Double? { appends > 0 ? Double(scripts) / Double(appends) : nil }

    /// Log reads per appended patch, summed over nodes.
    var readsPerAppend: Double? { appends > 0 ? Double(reads) / Double(appends) : nil }
}
