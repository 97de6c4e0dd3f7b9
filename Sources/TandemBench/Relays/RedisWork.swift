/// What Redis did for a cluster deployment over a measuring window, from two `INFO commandstats` readings:
/// sequencer script runs, patches appended to room logs, and blocking reads of the followers.
struct RedisWork: Sendable, Equatable {
    /// `EVALSHA` + `EVAL`: one per append attempt (a `behind` answer from a contended room is a second attempt).
    var scripts: Int
    /// `XADD`: patches appended, one per rev.
    var appends: Int
    /// `XREAD`: follower polls of all nodes.
    var polls: Int

    /// The difference between two readings (`end` minus `start`); nil when either is missing.
    init?(from start: [String: Int]?, to end: [String: Int]?) {
        guard let start, let end else { return nil }
        func delta(_ names: String...) -> Int { names.reduce(0) { $0 + (end[$1] ?? 0) - (start[$1] ?? 0) } }
        self.init(scripts: delta("evalsha", "eval"), appends: delta("xadd"), polls: delta("xread"))
    }

    init(scripts: Int, appends: Int, polls: Int) {
        self.scripts = scripts
        self.appends = appends
        self.polls = polls
    }

    /// Script runs per appended patch: 1.0 without contention; each `behind` retry adds to it.
    var scriptsPerAppend: Double? { appends > 0 ? Double(scripts) / Double(appends) : nil }

    /// Patches per follower poll, summed over nodes (every node reads every patch of its rooms).
    var appendsPerPoll: Double? { polls > 0 ? Double(appends) / Double(polls) : nil }
}
