import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The small numeric and `/proc` helpers of the relay benchmark, kept pure so they can be tested.
enum LoadStatistics {
    /// The `fraction` percentile (0...1) of `samples` by the nearest-rank method: the smallest sample such that at
    /// least `fraction` of all samples are at or below it. Nil when there are no samples.
    static func percentile(_ fraction: Double, of samples: [Int]) -> Int? {
        percentile(fraction, ofSorted: samples.sorted())
    }

    /// ``percentile(_:of:)`` for samples already sorted ascending (several percentiles of one sort).
    static func percentile(_ fraction: Double, ofSorted sorted: [Int]) -> Int? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// User plus system CPU time in clock ticks from one line of `/proc/PID/stat` (fields 14 and 15). The command
    /// name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
    static func cpuTicks(procStat line: String) -> Int? {
        guard let close = line.lastIndex(of: ")") else { return nil }
        let fields = line[line.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // After the name: field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The machine's CPU time since boot in clock ticks, all cores, and the part of it the hypervisor gave to
    /// other guests (steal), from the text of `/proc/stat`: its `cpu` line holds user, nice, system, idle,
    /// iowait, irq, softirq and steal (guest time, which follows, is already inside user and nice). Nil when
    /// the line is missing or short.
    static func hostCPUTicks(procStat text: String) -> (total: Int, stolen: Int)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let fields = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().prefix(8).compactMap { Int($0) }
        guard fields.count == 8 else { return nil }
        return (fields.reduce(0, +), fields[7])
    }

    /// ``hostCPUTicks(procStat:)`` of this machine now, or nil without `/proc/stat`.
    static func hostCPUTicks() -> (total: Int, stolen: Int)? {
        (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)).flatMap { hostCPUTicks(procStat: $0) }
    }

    /// The share (0...1) of the machine's CPU time stolen by the hypervisor between two readings of
    /// ``hostCPUTicks()``; nil when either is missing or no time passed.
    static func stolenShare(from start: (total: Int, stolen: Int)?, to end: (total: Int, stolen: Int)?) -> Double? {
        guard let start, let end, end.total > start.total else { return nil }
        return Double(end.stolen - start.stolen) / Double(end.total - start.total)
    }

    /// The resident set size in bytes from the text of `/proc/PID/status` (its `VmRSS:` line, in kB).
    static func residentBytes(procStatus text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let number = line.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return number.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// CPU seconds (user + system) another process has used, or nil when it is gone.
    static func cpuSeconds(processID: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(processID)/stat", encoding: .utf8),
              let ticks = cpuTicks(procStat: text)
        else { return nil }
        return Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory of another process in bytes, or nil when it is gone.
    static func residentBytes(processID: Int32) -> Int? {
        (try? String(contentsOfFile: "/proc/\(processID)/status", encoding: .utf8)).flatMap { residentBytes(procStatus: $0) }
    }

    /// CPU seconds (user + system) this process has used, all threads.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The 1-minute load average (from `/proc/loadavg`), the figure recorded next to every run.
    static func loadAverage() -> Double {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").first.flatMap { Double($0) } ?? 0
    }

    /// The 1-, 5- and 15-minute load averages, as `uptime` shows them (from `/proc/loadavg`).
    static func loadAverages() -> [Double] {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).compactMap { Double($0) }
    }

    /// Nanoseconds on the monotonic clock: the one clock both ends of a latency sample are read from.
    static func nowNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    /// Parses the decimal digits starting at `index`, advancing it past them (and one following space).
    static func parseInteger(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> Int {
        var value = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value &* 10 &+ Int(bytes[index] &- 0x30)
            index += 1
        }
        if index < bytes.count, bytes[index] == 0x20 { index += 1 }
        return value
    }

    /// The offset just after the first occurrence of `needle` in `bytes`, or nil.
    static func offset(after needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = 0
        let last = bytes.count - needle.count
        outer: while index <= last {
            if bytes[index] == first {
                for k in 1..<needle.count where bytes[index + k] != needle[k] {
                    index += 1
                    continue outer
                }
                return index + needle.count
            }
            index += 1
        }
        return nil
    }
}
