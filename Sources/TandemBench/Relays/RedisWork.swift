/// What Redis did for a cluster deployment over a measuring window, from two `INFO commandstats` readings:
/// sequencer script runs, room batches appended to room logs, and reads of the logs by the followers.
struct RedisWork: Sendable, Equatable {
    /// `EVALSHA` + `EVAL`: one per call a node sends with its rooms' batches (group commit), a `behind`
    /// retry included.
    var scripts: Int
    /// `XADD`: room batches appended, one log entry each (whatever the number of patches in it).
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

    /// Room batches appended per script run: above 1 when calls carry several rooms; `behind` retries
    /// lower it.
    var appendsPerScript: Double? { scripts > 0 ? Double(appends) / Double(scripts) : nil }

    /// Log reads per appended room batch, summed over nodes.
    var readsPerAppend: Double? { appends > 0 ? Double(reads) / Double(appends) : nil }
}
