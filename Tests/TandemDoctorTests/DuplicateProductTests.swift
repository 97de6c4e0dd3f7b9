import Testing
@testable import TandemDoctor

/// Files of one name made by two specs in one target: the "Multiple commands produce" rules.
@Suite struct DuplicateProductTests {
    @Test func theArticlesCaseGivesExactlyItsFindingsAndItsFix() throws {
        let doctor = DependencyDoctor(podfile: try Podfile(parsing: PodfileParserTests.article), lock: try Lockfile(parsing: LockfileTests.article),
                                      specs: try PodSpecTests.article)
        let findings = doctor.findings()
        #expect(findings.map(\.kind) == [.redundantDeclaration, .alternativeSubspecs, .alternativeSubspecs])
        let chat = findings[1]
        #expect(chat.target == "IMDemo" && chat.line == 7)
        #expect(chat.paths == [["TUIChat_Swift/UI_Minimalist", "TUIChatUI.framework (`Minimalist/TUIChatUI.xcframework`)"],
                               ["TUIChat_Swift/UI_Classic", "TUIChatUI.framework (`Classic/TUIChatUI.xcframework`)"]])
        #expect(chat.message.contains("alternative flavours of `TUIChat_Swift`") && chat.message.contains("Multiple commands produce '…/TUIChatUI.framework'"))
        #expect(chat.fix == "declare one flavour: keep one of `pod 'TUIChat_Swift/UI_Minimalist'` (line 5) and `pod 'TUIChat_Swift/UI_Classic'` (line 7)")
        #expect(findings[2].paths.map(\.first) == ["TUIConversation_Swift/UI_Minimalist", "TUIConversation_Swift/UI_Classic"] && findings[2].line == 8)
    }

    @Test func theArticlesPodfileFixedAsItSaysHasNoFindings() throws {
        let podfile = try Podfile(parsing: """
            platform :ios, '13.0'
            use_frameworks!

            target 'IMDemo' do
              pod 'TUIChat_Swift/UI_Minimalist'
              pod 'TUIConversation_Swift/UI_Minimalist'
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - TUIChat_Swift/Core (7.6.5011):
                - TUICore (>= 7.6.5011)
                - TXIMSDK_Plus_iOS (>= 7.6.5011)
              - TUIChat_Swift/UI_Minimalist (7.6.5011):
                - TUIChat_Swift/Core
              - TUIConversation_Swift/UI_Minimalist (7.6.5011):
                - TUICore
              - TUICore (7.6.5011):
                - TXIMSDK_Plus_iOS (>= 7.6.5011)
              - TXIMSDK_Plus_iOS (7.6.5011)

            DEPENDENCIES:
              - TUIChat_Swift/UI_Minimalist
              - TUIConversation_Swift/UI_Minimalist
            """)
        #expect(DependencyDoctor(podfile: podfile, lock: lock, specs: try PodSpecTests.article).findings() == [])
    }

    /// The binary and XCFramework editions of one SDK are two pods that ship one framework.
    @Test func oneFrameworkFromTwoPodsNamesBothSourcesAndWhoBringsThem() throws {
        let podfile = try Podfile(parsing: """
            target 'App' do
              pod 'TUICore'
              pod 'TXIMSDK_Plus_iOS'
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - TUICore (7.6.5011):
                - TXIMSDK_Plus_iOS_XCFramework
              - TXIMSDK_Plus_iOS (7.6.5011)
              - TXIMSDK_Plus_iOS_XCFramework (7.6.5011)

            DEPENDENCIES:
              - TUICore
              - TXIMSDK_Plus_iOS
            """)
        let specs = try [
            PodSpec(json: #"{ "name": "TUICore", "version": "7.6.5011", "source_files": "*.m" }"#),
            PodSpec(json: #"{ "name": "TXIMSDK_Plus_iOS", "version": "7.6.5011", "vendored_frameworks": "ImSDK_Plus.framework" }"#),
            PodSpec(json: #"{ "name": "TXIMSDK_Plus_iOS_XCFramework", "version": "7.6.5011", "vendored_frameworks": "ImSDK_Plus.xcframework" }"#),
        ]
        let findings = DependencyDoctor(podfile: podfile, lock: lock, specs: specs).findings()
        #expect(findings.map(\.kind) == [.duplicateProduct])
        let finding = try #require(findings.first)
        #expect(finding.paths == [["TXIMSDK_Plus_iOS", "ImSDK_Plus.framework (`ImSDK_Plus.framework`)"],
                                  ["TUICore", "TXIMSDK_Plus_iOS_XCFramework", "ImSDK_Plus.framework (`ImSDK_Plus.xcframework`)"]])
        #expect(finding.message.hasPrefix("ImSDK_Plus.framework comes from 2 pods: `TXIMSDK_Plus_iOS` (`ImSDK_Plus.framework`) and `TXIMSDK_Plus_iOS_XCFramework` (`ImSDK_Plus.xcframework`)"))
        #expect(finding.fix == "keep one source of ImSDK_Plus.framework: `pod 'TXIMSDK_Plus_iOS'` (line 3) or `TXIMSDK_Plus_iOS_XCFramework` (brought in by `pod 'TUICore'`, line 2)")
        #expect(finding.line == 3)
    }

    /// Two pods with one module name build two frameworks of one name once `use_frameworks!` is on.
    @Test(arguments: [true, false])
    func twoPodsBuildingOneModuleCollideOnlyAsFrameworks(usesFrameworks: Bool) throws {
        let podfile = try Podfile(parsing: """
            \(usesFrameworks ? "use_frameworks!" : "")
            target 'App' do
              pod 'TUIChat'
              pod 'TUIChat_Swift'
            end
            """)
        let lock = try Lockfile(parsing: "PODS:\n  - TUIChat (7.6)\n  - TUIChat_Swift (7.6)\n\nDEPENDENCIES:\n  - TUIChat\n  - TUIChat_Swift\n")
        let specs = try [
            PodSpec(json: #"{ "name": "TUIChat", "version": "7.6", "source_files": "**/*.m" }"#),
            PodSpec(json: #"{ "name": "TUIChat_Swift", "version": "7.6", "module_name": "TUIChat", "source_files": "**/*.swift" }"#),
        ]
        let findings = DependencyDoctor(podfile: podfile, lock: lock, specs: specs).findings()
        #expect(findings.map(\.kind) == (usesFrameworks ? [.duplicateProduct] : []))
        #expect(findings.first?.paths.map(\.last) == (usesFrameworks ? ["TUIChat.framework (built from its sources)", "TUIChat.framework (built from its sources)"] : nil))
    }

    /// What one pod target merges, what another platform uses, and what another target links are no
    /// collision; nor is a spec at a version the lock does not hold.
    @Test func filesThatDoNotMeetInOneTargetAreNoFinding() throws {
        let podfile = try Podfile(parsing: """
            platform :ios, '15.0'
            target 'App' do
              pod 'GoogleMaps/Maps'
              pod 'GoogleMaps/Places'
              pod 'Flavoured/A'
            end
            target 'Widget' do
              pod 'Flavoured/B'
            end
            target 'Old' do
              pod 'Stale/A'
              pod 'Stale/B'
            end
            """)
        let lock = try Lockfile(parsing: """
            PODS:
              - Flavoured/A (1.0)
              - Flavoured/B (1.0)
              - GoogleMaps/Maps (8.0)
              - GoogleMaps/Places (8.0)
              - Stale/A (2.0)
              - Stale/B (2.0)

            DEPENDENCIES:
              - Flavoured/A
              - Flavoured/B
              - GoogleMaps/Maps
              - GoogleMaps/Places
              - Stale/A
              - Stale/B
            """)
        let flavours = #"{ "name": "%@", "version": "%@", "subspecs": [ { "name": "A", "vendored_frameworks": "a/F.xcframework" }, { "name": "B", "vendored_frameworks": "b/F.xcframework" } ] }"#
        let specs = try [
            PodSpec(json: """
                { "name": "GoogleMaps", "version": "8.0", "vendored_frameworks": "Base/GoogleMapsBase.xcframework",
                  "resource_bundles": { "GoogleMapsResources": ["*.png"] },
                  "ios": { "vendored_frameworks": "ios/GoogleMapsCore.xcframework" },
                  "osx": { "vendored_frameworks": "mac/GoogleMapsCore.xcframework" },
                  "subspecs": [ { "name": "Maps" }, { "name": "Places" } ] }
                """),
            PodSpec(json: flavours.replacingFirst("%@", with: "Flavoured").replacingFirst("%@", with: "1.0")),
            PodSpec(json: flavours.replacingFirst("%@", with: "Stale").replacingFirst("%@", with: "1.9")),
        ]
        #expect(DependencyDoctor(podfile: podfile, lock: lock, specs: specs).findings() == [])
    }

    @Test func theWholePodBringingBothFlavoursIsToldToNameOne() throws {
        let podfile = try Podfile(parsing: "target 'App' do\n  pod 'Flavoured'\nend\n")
        let lock = try Lockfile(parsing: """
            PODS:
              - Flavoured (1.0):
                - Flavoured/A (= 1.0)
                - Flavoured/B (= 1.0)
              - Flavoured/A (1.0)
              - Flavoured/B (1.0)

            DEPENDENCIES:
              - Flavoured
            """)
        let spec = try PodSpec(json: #"{ "name": "Flavoured", "version": "1.0", "subspecs": [ { "name": "A", "vendored_frameworks": "a/F.xcframework" }, { "name": "B", "vendored_frameworks": "b/F.xcframework" } ] }"#)
        let findings = DependencyDoctor(podfile: podfile, lock: lock, specs: [spec]).findings()
        #expect(findings.map(\.kind) == [.alternativeSubspecs])
        #expect(findings.first?.paths == [["Flavoured", "Flavoured/A", "F.framework (`a/F.xcframework`)"], ["Flavoured", "Flavoured/B", "F.framework (`b/F.xcframework`)"]])
        #expect(findings.first?.fix == "declare the subspec you want (e.g. `pod 'Flavoured/A'`) instead of `pod 'Flavoured'` (line 2)")
    }
}

extension String {
    /// The string with the first `target` replaced.
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(range, with: replacement)
        return copy
    }
}
