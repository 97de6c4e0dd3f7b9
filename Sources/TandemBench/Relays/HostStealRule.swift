/// When scenario (b) is measured again: a run during which the hypervisor gave more than `maxSteal` of the
/// machine's CPU time to other guests measured the host's neighbours as much as the server (the Go relay's own
/// p99 moved between 0.8 and 12 ms with it), so it is repeated, up to `maxAttempts` runs in all, and the run
/// with the least steal is kept. The same rule for every server; the per-run table shows the runs it took.
///
/// A run that lost a message or failed an order check is never repeated and is always the one kept: the rule
/// can only discard runs that were clean.
enum HostStealRule {
    /// The steal share above which a run is repeated.
    static let maxSteal = 0.05
    /// Runs of (b) per server and round, at most.
    static let maxAttempts = 3

    /// Whether to run (b) again after `attempts` (oldest first).
    static func repeats(after attempts: [RelayScenarios.FixedRate]) -> Bool {
        guard let last = attempts.last, attempts.count < maxAttempts, last.lost == 0, last.audit.isClean,
              last.neverDelivered ?? 0 == 0, let steal = last.hostSteal else { return false }
        return steal > maxSteal
    }

    /// The run to report, with `attempts` set to how many were made: the first one that was not clean, else the
    /// one with the least steal (the earliest of equals).
    static func kept(_ attempts: [RelayScenarios.FixedRate]) -> RelayScenarios.FixedRate? {
        let unclean = attempts.first { $0.lost > 0 || !$0.audit.isClean || $0.neverDelivered ?? 0 > 0 }
        guard var chosen = unclean ?? attempts.min(by: { ($0.hostSteal ?? 0) < ($1.hostSteal ?? 0) }) else { return nil }
        chosen.attempts = attempts.count
        return chosen
    }
}
