import Testing
@testable import TandemWire

@Suite struct AvailableCoresTests {
    @Test func theCountIsTheLeastOfOnlineAffinityAndQuotaRoundedDown() {
        #expect(AvailableCores.limit(online: 8, affinity: nil, quota: nil) == 8)
        #expect(AvailableCores.limit(online: 8, affinity: 3, quota: nil) == 3)
        #expect(AvailableCores.limit(online: 8, affinity: 4, quota: 2.5) == 2)
        #expect(AvailableCores.limit(online: 2, affinity: 2, quota: 0.5) == 1, "never fewer than one")
        #expect(AvailableCores.count() >= 1)
    }

    @Test func cgroupV2QuotaComesFromCpuMaxOfTheProcessCgroupOrTheRoot() {
        #expect(AvailableCores.quotaCores(cpuMax: "150000 100000\n") == 1.5)
        #expect(AvailableCores.quotaCores(cpuMax: "max 100000\n") == nil)
        #expect(AvailableCores.quotaCores(cpuMax: "garbage") == nil)
        let own = ["/sys/fs/cgroup/kubepods/pod1/cpu.max": "200000 100000\n"]
        #expect(AvailableCores.quotaCores(procSelfCgroup: "0::/kubepods/pod1\n") { own[$0] } == 2)
        // Inside a container the listed path may not exist there; the limit is at the root.
        let root = ["/sys/fs/cgroup/cpu.max": "100000 100000\n"]
        #expect(AvailableCores.quotaCores(procSelfCgroup: "0::/elsewhere\n") { root[$0] } == 1)
        #expect(AvailableCores.quotaCores(procSelfCgroup: "0::/\n") { _ in nil } == nil)
    }

    @Test func cgroupV1QuotaComesFromTheCpuControllerFiles() {
        #expect(AvailableCores.quotaCores(cfsQuota: "-1\n", period: "100000\n") == nil)
        #expect(AvailableCores.quotaCores(cfsQuota: "50000\n", period: "100000\n") == 0.5)
        let files = ["/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "300000\n",
                     "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"]
        let text = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"
        #expect(AvailableCores.quotaCores(procSelfCgroup: text) { files[$0] } == 3)
        // This machine's layout: v1 with no quota.
        let none = ["/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"]
        #expect(AvailableCores.quotaCores(procSelfCgroup: "1:cpu:/\n0::/\n") { none[$0] } == nil)
    }
}
