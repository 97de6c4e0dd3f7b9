import TandemProxy

/// One network a co-browsing session may run on, as both participants' links see it (each its own link,
/// same faults): a one-way delay with in-order jitter, a bandwidth cap and periodic stalls.
struct WeakLinkProfile: Sendable {
    var name: String
    var faults: FaultProxy.Faults

    /// Good Wi-Fi: 10 ± 3 ms one way.
    static let good = WeakLinkProfile(name: "good", faults: .init(latency: .milliseconds(7), jitter: .milliseconds(6)))
    /// Weak Wi-Fi: 80 ± 40 ms, 25 kB/s, a 400 ms stall every 3 s.
    static let weakWiFi = WeakLinkProfile(name: "weak Wi-Fi", faults: .init(
        latency: .milliseconds(40), jitter: .milliseconds(80), bandwidthKilobytesPerSecond: 25,
        stallEvery: .seconds(3), stallLength: .milliseconds(400)))
    /// Congested: 150 ± 60 ms, 8 kB/s, an 800 ms stall every 5 s.
    static let congested = WeakLinkProfile(name: "congested", faults: .init(
        latency: .milliseconds(90), jitter: .milliseconds(120), bandwidthKilobytesPerSecond: 8,
        stallEvery: .seconds(5), stallLength: .milliseconds(800)))

    static let all = [good, weakWiFi, congested]
}
