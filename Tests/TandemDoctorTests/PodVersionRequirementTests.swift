import Testing
@testable import TandemDoctor

@Suite struct PodVersionRequirementTests {
    @Test(arguments: [
        ("~> 5.8", "5.8.1", true), ("~> 5.8", "5.9", true), ("~> 5.8", "6.0", false), ("~> 5.8", "5.7.9", false),
        ("~> 5.8.1", "5.8.9", true), ("~> 5.8.1", "5.9.0", false), ("~> 1", "1.9", true), ("~> 1", "2.0", false),
        (">= 1.2", "1.2", true), (">= 1.2", "1.1.9", false), ("< 2", "1.99", true), ("< 2", "2.0.0", false),
        ("= 1.0", "1.0.0", true), ("1.0", "1.0.1", false), ("!= 1.0", "1.0.1", true), ("<= 1.0", "1.0", true),
        ("> 1.0", "1.0", false), (">= 1.0", "1.0.0-beta.1", false), ("> 1.0.0-beta.1", "1.0.0", true),
        ("> 1.0.0-beta.1", "1.0.0-beta.2", true),
    ])
    func versionsSatisfyRequirementsAsCocoaPodsSays(requirement: String, version: String, satisfied: Bool) throws {
        let parsed = try #require(PodVersionRequirement(requirement))
        #expect(parsed.isSatisfied(by: version) == satisfied, "\(version) against \(requirement)")
    }

    @Test func textThatIsNotARequirementIsNotRead() {
        #expect(PodVersionRequirement(":head") == nil && PodVersionRequirement(">= ") == nil)
    }
}
