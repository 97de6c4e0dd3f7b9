import Testing
@testable import TandemDoctor

/// The rules over a Podfile and its lock, starting with the architecture article's case.
@Suite struct DependencyDoctorTests {
    @Test func theArticlesCoreSDKDeclaredByHandIsRedundantWithTheChainThatProvesIt() throws {
        let doctor = DependencyDoctor(podfile: try Podfile(parsing: PodfileParserTests.article), lock: try Lockfile(parsing: LockfileTests.article))
        let findings = doctor.findings().filter { $0.kind == .redundantDeclaration }
        #expect(findings.count == 1)
        let finding = try #require(findings.first)
        #expect(finding.target == "IMDemo" && finding.line == 9)
        #expect(finding.paths == [["TUIChat_Swift/UI_Minimalist", "TUIChat_Swift/Core", "TXIMSDK_Plus_iOS"]])
        #expect(finding.message.contains("embedded twice"), "use_frameworks! is on: the build fails as the article says")
        #expect(finding.fix.contains("remove `pod 'TXIMSDK_Plus_iOS'` (line 9)"))
    }

    /// Only a declaration that adds nothing is redundant: one that pins a version, a source or subspecs
    /// is the app deciding what it imports itself; a subspec is redundant only when that subspec is brought in.
    @Test func aDeclarationThatDecidesSomethingIsNotRedundant() throws {
        let lock = try Lockfile(parsing: """
            PODS:
              - Firebase/Analytics (10.18.0):
                - Firebase/Core
              - Firebase/Core (10.18.0)
              - FirebaseUI/Auth (13.1.0):
                - Firebase/Core
              - KeychainAccess (4.2.2)
              - Networking (0.3.0):
                - KeychainAccess (~> 4.2)

            DEPENDENCIES:
              - Firebase/Analytics
              - FirebaseUI/Auth
              - KeychainAccess
              - Networking
            """)
        func findings(_ keychain: String) throws -> [DoctorFinding] {
            let podfile = try Podfile(parsing: "target 'App' do\n  pod 'Networking'\n  \(keychain)\n  pod 'FirebaseUI/Auth'\n  pod 'Firebase/Analytics'\nend\n")
            return DependencyDoctor(podfile: podfile, lock: lock).findings().filter { $0.kind == .redundantDeclaration }
        }
        #expect(try findings("pod 'KeychainAccess'").map(\.paths) == [[["Networking", "KeychainAccess"]]])
        #expect(try findings("pod 'KeychainAccess', '~> 4.2'").isEmpty)
        #expect(try findings("pod 'KeychainAccess', :git => 'https://github.com/kishikawakatsumi/KeychainAccess.git'").isEmpty)
    }

    @Test func aPodfileAndALockOutOfStepAreReported() throws {
        let podfile = try Podfile(parsing: """
            target 'App' do
              pod 'Alamofire', '~> 5.8'
              pod 'SnapKit'
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - Alamofire (5.8.1)
              - Kingfisher (7.10.0)

            DEPENDENCIES:
              - Alamofire (~> 5.8)
              - Kingfisher
            """)
        let findings = DependencyDoctor(podfile: podfile, lock: lock).findings()
        #expect(findings.map(\.kind) == [.notLocked, .noLongerDeclared])
        #expect(findings.first?.line == 3 && findings.first?.paths == [["SnapKit"]])
        #expect(findings.last?.paths == [["Kingfisher"]])
    }

    @Test func aRequirementTheLockedVersionDoesNotSatisfyIsReported() throws {
        let podfile = try Podfile(parsing: """
            target 'App' do
              pod 'Alamofire', '~> 5.8'
              pod 'SnapKit', '>= 5.0', '< 6'
              pod 'Local', :path => '../Local'
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - Alamofire (5.7.1)
              - Local (0.1)
              - SnapKit (5.6.0)

            DEPENDENCIES:
              - Alamofire (~> 5.8)
              - Local (from `../Local`)
              - SnapKit (< 6, >= 5.0)
            """)
        let findings = DependencyDoctor(podfile: podfile, lock: lock).findings()
        #expect(findings.map(\.kind) == [.unsatisfiedRequirement])
        #expect(findings.first?.line == 2 && findings.first?.message.contains("requires `~> 5.8`, but Podfile.lock holds 5.7.1") == true)
        #expect(findings.first?.fix.contains("pod update Alamofire") == true)
    }

    @Test func aConsistentPodfileAndLockHaveNoFindings() throws {
        let podfile = try Podfile(parsing: """
            platform :ios, '15.0'
            use_frameworks!
            target 'App' do
              pod 'Firebase/Analytics'
              pod 'Alamofire'
              target 'AppTests' do
                inherit! :search_paths
              end
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - Alamofire (5.8.1)
              - Firebase/Analytics (10.18.0):
                - Firebase/Core
              - Firebase/Core (10.18.0):
                - FirebaseAnalytics (~> 10.18.0)
              - FirebaseAnalytics (10.18.0)

            DEPENDENCIES:
              - Alamofire
              - Firebase/Analytics
            """)
        #expect(DependencyDoctor(podfile: podfile, lock: lock).findings() == [])
    }
}
