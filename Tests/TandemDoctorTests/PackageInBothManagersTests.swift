import Testing
@testable import TandemDoctor

/// One library from both CocoaPods and SwiftPM.
@Suite struct PackageInBothManagersTests {
    static let podfile = """
        target 'App' do
          pod 'Alamofire', '~> 5.8'
          pod 'FBSDKLoginKit'
          pod 'SnapKit'
        end
        """

    static let lock = """
        PODS:
          - Alamofire (5.8.1)
          - FBSDKCoreKit (17.0.0)
          - FBSDKLoginKit (17.0.0):
            - FBSDKCoreKit (= 17.0.0)
          - SnapKit (5.7.1)

        DEPENDENCIES:
          - Alamofire (~> 5.8)
          - FBSDKLoginKit
          - SnapKit
        """

    @Test func aPodAlsoResolvedBySwiftPMIsReportedByNameOrByRepository() throws {
        let packages = PackageResolved(pins: [
            .init(identity: "alamofire", location: "https://github.com/Alamofire/Alamofire.git", version: "5.9.0"),
            .init(identity: "facebook-ios-sdk", location: "git@github.com:facebook/facebook-ios-sdk", version: "17.0.0"),
            .init(identity: "swift-collections", location: "https://github.com/apple/swift-collections.git", version: "1.1.0"),
        ])
        let facebook = try PodSpec(json: #"{ "name": "FBSDKCoreKit", "version": "17.0.0", "source": { "git": "https://github.com/facebook/facebook-ios-sdk.git", "tag": "v17.0.0" } }"#)
        let findings = DependencyDoctor(podfile: try Podfile(parsing: Self.podfile), lock: try Lockfile(parsing: Self.lock),
                                        specs: [facebook], packages: packages).findings()
        #expect(findings.map(\.kind) == [.packageInBothManagers, .packageInBothManagers])
        let alamofire = findings[0]
        #expect(alamofire.message == "`Alamofire` comes from both CocoaPods (5.8.1) and SwiftPM (`alamofire` 5.9.0): two versions of one library in one app")
        #expect(alamofire.line == 2 && alamofire.fix.contains("remove `pod 'Alamofire'` (line 2), or remove the package `alamofire`"))
        #expect(alamofire.paths == [["Alamofire", "Alamofire (5.8.1, CocoaPods)"], ["alamofire (5.9.0, SwiftPM)"]])
        let core = findings[1]
        #expect(core.message.hasSuffix("two copies of one library in one app"))
        #expect(core.paths.first == ["FBSDKLoginKit", "FBSDKCoreKit", "FBSDKCoreKit (17.0.0, CocoaPods)"])
        #expect(core.fix.contains("stop taking `FBSDKLoginKit` from CocoaPods (line 3, which brings in `FBSDKCoreKit`)"))
    }

    @Test func theLocksGitSourceMatchesToo() throws {
        let podfile = try Podfile(parsing: "target 'App' do\n  pod 'Charts', :git => 'https://github.com/danielgindi/Charts.git', :tag => 'v5.1.0'\nend\n")
        let lock = try Lockfile(parsing: """
            PODS:
              - DGCharts (5.1.0)

            DEPENDENCIES:
              - DGCharts (from `https://github.com/danielgindi/Charts.git`, tag `v5.1.0`)

            EXTERNAL SOURCES:
              DGCharts:
                :git: https://github.com/danielgindi/Charts.git
                :tag: v5.1.0

            CHECKOUT OPTIONS:
              DGCharts:
                :git: https://github.com/danielgindi/Charts.git
                :tag: v5.1.0
            """)
        let packages = PackageResolved(pins: [.init(identity: "charts", location: "https://github.com/danielgindi/Charts", version: nil, revision: "0123456789abcdef")])
        let findings = DependencyDoctor(podfile: podfile, lock: lock, packages: packages).findings().filter { $0.kind == .packageInBothManagers }
        #expect(findings.count == 1 && findings.first?.message.contains("SwiftPM (`charts` revision 0123456)") == true)
    }

    @Test func namesAndRepositoriesAreComparedAsTheSameThing() {
        #expect(DependencyDoctor.comparableName("swift-protobuf") == DependencyDoctor.comparableName("SwiftProtobuf"))
        #expect(DependencyDoctor.comparableName("lottie-ios") != DependencyDoctor.comparableName("lottie"))
        for url in ["https://github.com/Acme/Kit.git", "git@github.com:acme/kit.git", "ssh://git@github.com/acme/kit", "https://github.com/acme/kit/"] {
            #expect(DependencyDoctor.repository(url) == "github.com/acme/kit", "\(url)")
        }
    }
}
