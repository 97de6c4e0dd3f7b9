import Foundation
#if os(Linux)
import CTandemSystem
#endif

/// How many cores this process may really use: the online cores, limited by its CPU affinity (`taskset`, a
/// container's cpuset) and by a cgroup CPU quota (a container's CPU limit, v2 `cpu.max` or v1
/// `cpu.cfs_quota_us`), rounded down, and at least 1.
///
/// Why: thread counts and busy polling sized by the machine's cores alone oversubscribe a container limited to
/// fewer: a quota spent by polling throttles every thread of the process until the next period.
enum AvailableCores {
    /// This process's count, read from the system at each call (`/proc`, `/sys/fs/cgroup`, `sched_getaffinity`).
    static func count() -> Int {
        let online = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #if os(Linux)
        let affinity = Int(tandem_affinity_cpu_count())
        let cgroups = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        let quota = quotaCores(procSelfCgroup: cgroups) { try? String(contentsOfFile: $0, encoding: .utf8) }
        return limit(online: online, affinity: affinity > 0 ? affinity : nil, quota: quota)
        #else
        return online
        #endif
    }

    /// The least of the three, the quota rounded down, at least 1.
    static func limit(online: Int, affinity: Int?, quota: Double?) -> Int {
        var cores = online
        if let affinity { cores = min(cores, affinity) }
        if let quota { cores = min(cores, Int(quota.rounded(.down))) }
        return max(1, cores)
    }

    /// The CPU quota in cores of the cgroup named in `procSelfCgroup` (the text of `/proc/self/cgroup`), reading
    /// files through `read`; nil when there is none. Looks at the process's own cgroup, then at the root of the
    /// hierarchy (inside a container the listed path is often the host's, and the container's limit is at its
    /// root).
    static func quotaCores(procSelfCgroup: String, read: (String) -> String?) -> Double? {
        for line in procSelfCgroup.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let path = fields[2] == "/" ? "" : String(fields[2])
            if fields[0] == "0", fields[1].isEmpty {
                for folder in ["/sys/fs/cgroup" + path, "/sys/fs/cgroup"] {
                    if let text = read(folder + "/cpu.max") { return quotaCores(cpuMax: text) }
                }
            } else if fields[1].split(separator: ",").contains("cpu") {
                for mount in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                    for folder in [mount + path, mount] {
                        if let quota = read(folder + "/cpu.cfs_quota_us"), let period = read(folder + "/cpu.cfs_period_us") {
                            return quotaCores(cfsQuota: quota, period: period)
                        }
                    }
                }
            }
        }
        return nil
    }

    /// Cores from a cgroup v2 `cpu.max` ("QUOTA PERIOD" in microseconds, or "max PERIOD" for none).
    static func quotaCores(cpuMax: String) -> Double? {
        let fields = cpuMax.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0 else { return nil }
        return quota / period
    }

    /// Cores from cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us` (a quota of -1 is none).
    static func quotaCores(cfsQuota: String, period: String) -> Double? {
        let trimmed = { (text: String) in Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard let quota = trimmed(cfsQuota), let period = trimmed(period), quota > 0, period > 0 else { return nil }
        return quota / period
    }
}
