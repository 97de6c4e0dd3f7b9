import Testing
@testable import TandemDoctor

/// Consistent Podfiles and locks of the shapes real apps have: read whole, with nothing found.
@Suite struct RealWorldFixtureTests {
    @Test(arguments: RealWorldFixtures.all.map(\.name))
    func aConsistentPairIsReadWithoutFindings(name: String) throws {
        let pair = try #require(RealWorldFixtures.all.first { $0.name == name })
        let podfile = try Podfile(parsing: pair.podfile)
        let lock = try Lockfile(parsing: pair.lock)
        #expect(podfile.concreteTargets.map(\.name) == pair.targets)
        #expect(!lock.pods.isEmpty && lock.cocoapodsVersion?.hasPrefix("1.1") == true)
        #expect(DependencyDoctor(podfile: podfile, lock: lock).findings() == [])
    }
}
