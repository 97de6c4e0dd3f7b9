import Testing
@testable import TandemClient

/// The lifecycle's rules, fed events and times: a quick app switch keeps the connection, a long one
/// suspends it, a path change reconnects once it settles, a flapping path reconnects once.
@Suite struct LifecyclePolicyTests {
    private static let wifi = NetworkPath(interfaces: ["wifi"])
    private static let cellular = NetworkPath(interfaces: ["cellular"], isExpensive: true)

    /// Feeds `events` at their times, firing every deadline that falls before each and up to `until`.
    private static func run(_ events: [(Duration, AppEnvironmentEvent)], until end: Duration,
                            settings: LifecycleSettings = LifecycleSettings()) -> [(Duration, LifecyclePolicy.Action)] {
        var policy = LifecyclePolicy(settings: settings)
        var done: [(Duration, LifecyclePolicy.Action)] = []
        func fireDeadlines(before limit: Duration) {
            while let deadline = policy.nextDeadline, deadline <= limit {
                done += policy.tick(at: deadline).map { (deadline, $0) }
            }
        }
        for (at, event) in events {
            fireDeadlines(before: at)
            done += policy.handle(event, at: at).map { (at, $0) }
        }
        fireDeadlines(before: end)
        return done
    }

    private static func sessionActions(_ done: [(Duration, LifecyclePolicy.Action)]) -> [(Duration, LifecyclePolicy.Action)] {
        done.filter { if case .conditions = $0.1 { false } else { true } }
    }

    @Test func aQuickSwitchToAnotherAppKeepsTheConnection() {
        let done = Self.run([(.zero, .background), (.seconds(3), .foreground)], until: .seconds(60))
        #expect(done.isEmpty)
    }

    @Test func aLongStayInTheBackgroundSuspendsAfterTheGraceAndTheForegroundResumes() {
        let done = Self.run([(.zero, .background), (.seconds(1), .background), (.seconds(40), .foreground)], until: .seconds(60))
        #expect(done.map(\.0) == [.seconds(5), .seconds(40)])
        #expect(done.map(\.1) == [.suspend, .resume])
    }

    /// iOS freezes an app in the background within seconds: the grace's timer never fires, and the
    /// connection the app comes back to is most likely dead.
    @Test func aForegroundAfterAFrozenBackgroundReplacesTheConnection() {
        var policy = LifecyclePolicy(settings: LifecycleSettings())
        #expect(policy.handle(.background, at: .zero).isEmpty)
        #expect(policy.handle(.foreground, at: .seconds(60)) == [.reconnectNow])
        #expect(policy.nextDeadline == nil)
        #expect(policy.handle(.background, at: .seconds(61)).isEmpty)
        #expect(policy.handle(.foreground, at: .seconds(62)).isEmpty, "a quick switch still keeps it")
    }

    @Test func theFirstPathIsWhereTheAppStartsAndACostChangeAloneIsNoReconnect() {
        let expensiveWifi = NetworkPath(interfaces: ["wifi"], isExpensive: true, isConstrained: true)
        let done = Self.run([(.zero, .path(Self.wifi)), (.seconds(1), .path(expensiveWifi))], until: .seconds(10))
        #expect(done.map(\.1) == [.conditions(NetworkConditions()),
                                  .conditions(NetworkConditions(isAvailable: true, isExpensive: true, isConstrained: true))])
    }

    @Test func anotherInterfaceReconnectsOnceThePathHasSettled() {
        let done = Self.sessionActions(Self.run([(.zero, .path(Self.wifi)), (.seconds(1), .path(Self.cellular))], until: .seconds(10)))
        #expect(done.map(\.0) == [.milliseconds(1_300)])
        #expect(done.map(\.1) == [.reconnectNow])
    }

    @Test func aPathFlappingTenTimesASecondReconnectsOnce() {
        var events: [(Duration, AppEnvironmentEvent)] = [(.zero, .path(Self.wifi))]
        for flap in 1...10 { events.append((.milliseconds(1_000 + 100 * flap), .path(flap.isMultiple(of: 2) ? Self.wifi : Self.cellular))) }
        let done = Self.sessionActions(Self.run(events, until: .seconds(10)))
        #expect(done.map(\.1) == [.reconnectNow])
        #expect(done.map(\.0) == [.milliseconds(2_300)])
    }

    @Test func aPathThatNeverSettlesStillReconnectsEveryMaxDelay() {
        var events: [(Duration, AppEnvironmentEvent)] = [(.zero, .path(Self.wifi))]
        for flap in 1...50 { events.append((.milliseconds(100 * flap), .path(flap.isMultiple(of: 2) ? Self.wifi : Self.cellular))) }
        let done = Self.sessionActions(Self.run(events, until: .seconds(10)))
        #expect(done.map(\.0) == [.milliseconds(2_100), .milliseconds(4_100), .milliseconds(5_300)])
    }

    @Test func noReconnectWithoutANetworkOneWhenItComesBackAndNoneWhileSuspended() {
        let gone = NetworkPath(isSatisfied: false, interfaces: [])
        let lost = Self.sessionActions(Self.run([(.zero, .path(Self.wifi)), (.seconds(1), .path(gone)), (.seconds(5), .path(Self.wifi))],
                                                until: .seconds(10)))
        #expect(lost.map(\.0) == [.milliseconds(5_300)])
        #expect(lost.map(\.1) == [.reconnectNow])

        let suspended = Self.sessionActions(Self.run([(.zero, .path(Self.wifi)), (.seconds(1), .background), (.seconds(10), .path(Self.cellular)),
                                                      (.seconds(20), .foreground)], until: .seconds(30)))
        #expect(suspended.map(\.1) == [.suspend, .resume], "no reconnect while suspended, none after the resume")
    }
}
