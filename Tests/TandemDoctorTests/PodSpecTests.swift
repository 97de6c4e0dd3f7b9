import Testing
@testable import TandemDoctor

/// The podspec JSON reader: what each spec makes the build produce, per subspec and platform.
@Suite struct PodSpecTests {
    /// TUIChat_Swift as the article's fixture has it: the core built from sources, and each UI flavour a
    /// prebuilt framework of the same name.
    static let tuiChat = """
        {
          "name": "TUIChat_Swift",
          "version": "7.6.5011",
          "module_name": "TUIChat",
          "source": { "http": "https://im.sdk.qcloud.com/download/tuikit/7.6.5011/ios/TUIChat_Swift.zip" },
          "platforms": { "ios": "13.0" },
          "subspecs": [
            { "name": "Core", "source_files": "Core/**/*.swift",
              "dependencies": { "TUICore": [">= 7.6.5011"], "TXIMSDK_Plus_iOS": [">= 7.6.5011"] } },
            { "name": "UI_Minimalist", "vendored_frameworks": "Minimalist/TUIChatUI.xcframework",
              "dependencies": { "TUIChat_Swift/Core": [] } },
            { "name": "UI_Classic", "vendored_frameworks": ["Classic/TUIChatUI.xcframework"],
              "dependencies": { "TUIChat_Swift/Core": [] } }
          ]
        }
        """

    static let tuiConversation = """
        {
          "name": "TUIConversation_Swift",
          "version": "7.6.5011",
          "module_name": "TUIConversation",
          "subspecs": [
            { "name": "UI_Minimalist", "vendored_frameworks": "Minimalist/TUIConversationUI.xcframework" },
            { "name": "UI_Classic", "vendored_frameworks": "Classic/TUIConversationUI.xcframework" }
          ]
        }
        """

    static let tuiCore = """
        { "name": "TUICore", "version": "7.6.5011", "source_files": "TUICore/**/*.{h,m}",
          "dependencies": { "TXIMSDK_Plus_iOS": [">= 7.6.5011"] } }
        """

    static let imSDK = """
        { "name": "TXIMSDK_Plus_iOS", "version": "7.6.5011", "vendored_frameworks": "ImSDK_Plus.framework" }
        """

    static var article: [PodSpec] {
        get throws { try [tuiChat, tuiConversation, tuiCore, imSDK].map { try PodSpec(json: $0) } }
    }

    @Test func subspecsHaveFullNamesAndTheirOwnFiles() throws {
        let spec = try PodSpec(json: Self.tuiChat)
        #expect(spec.name == "TUIChat_Swift" && spec.version == "7.6.5011" && spec.moduleName == "TUIChat")
        #expect(spec.subspecs.map(\.name) == ["TUIChat_Swift/Core", "TUIChat_Swift/UI_Minimalist", "TUIChat_Swift/UI_Classic"])
        #expect(spec.subspecs[0].files.hasSourceFiles && !spec.files.hasSourceFiles)
        #expect(spec.subspecs[2].files.vendoredFrameworks == ["Classic/TUIChatUI.xcframework"])
        #expect(spec.lineage(of: "TUIChat_Swift/UI_Classic").map(\.name) == ["TUIChat_Swift", "TUIChat_Swift/UI_Classic"])
        #expect(spec.lineage(of: "TUIChat_Swift/UI_Other").isEmpty && spec.lineage(of: "TUIChat_Swift").map(\.name) == ["TUIChat_Swift"])
    }

    @Test func platformAttributesJoinTheCommonOnesForThatPlatformOnly() throws {
        let spec = try PodSpec(json: """
            { "name": "Maps", "version": "2.0", "source": { "git": "https://github.com/acme/maps.git", "tag": "2.0" },
              "resource_bundles": { "MapsAssets": ["Assets/*"] },
              "ios": { "vendored_frameworks": "ios/MapsCore.xcframework" },
              "osx": { "vendored_frameworks": "mac/MapsCore.framework", "source_files": "mac/*.swift" } }
            """)
        #expect(spec.gitSource == "https://github.com/acme/maps.git")
        #expect(spec.files(for: "ios") == PodSpec.Files(vendoredFrameworks: ["ios/MapsCore.xcframework"], resourceBundles: ["MapsAssets"]))
        #expect(spec.files(for: "osx").hasSourceFiles && spec.files(for: "osx").vendoredFrameworks == ["mac/MapsCore.framework"])
        #expect(spec.files(for: "tvos") == PodSpec.Files(resourceBundles: ["MapsAssets"]))
    }

    @Test(arguments: [
        ("{\n  \"name\": \"A\",\n  \"version\": 1.0.0\n}", 3, "invalid JSON"),
        ("[]", 1, "a JSON object"),
        ("{ \"name\": \"A\" }", 1, "\"version\""),
        ("{\n\"name\": \"A\", \"version\": \"1\",\n\"subspecs\": [\n{ \"name\": \"B\" }\n", 5, "unexpected end"),
    ])
    func invalidSpecsAreRefusedWithTheirLine(text: String, line: Int, reason: String) {
        #expect {
            try PodSpec(json: text, file: "A.podspec.json")
        } throws: { error in
            guard let error = error as? DoctorInputError else { return false }
            return error.file == "A.podspec.json" && error.line == line && error.reason.contains(reason)
        }
    }

    @Test func vendoredPathsNameTheFrameworksTheAppGets() {
        #expect(DependencyDoctor.frameworkNames(vendoredAt: "Frameworks/ImSDK_Plus.xcframework") == ["ImSDK_Plus.framework"])
        #expect(DependencyDoctor.frameworkNames(vendoredAt: "A.framework") == ["A.framework"])
        #expect(DependencyDoctor.frameworkNames(vendoredAt: "Lib/{A,B}.xcframework") == ["A.framework", "B.framework"])
        #expect(DependencyDoctor.frameworkNames(vendoredAt: "Frameworks/*.xcframework").isEmpty)
        #expect(DependencyDoctor.frameworkNames(vendoredAt: "libfoo.a").isEmpty)
        #expect(DependencyDoctor.moduleName(of: "lottie-ios") == "lottie_ios" && DependencyDoctor.moduleName(of: "1Password") == "_1Password")
    }
}
