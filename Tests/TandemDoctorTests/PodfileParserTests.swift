import Testing
@testable import TandemDoctor

/// The Podfile reader on the shapes real Podfiles take, and line-precise refusals of what it cannot read.
@Suite struct PodfileParserTests {
    /// The architecture article's Podfile (section 二): both UI flavours of the TUIKit pods, and the core
    /// SDK declared again by hand.
    static let article = """
        platform :ios, '13.0'
        use_frameworks!

        target 'IMDemo' do
          pod 'TUIChat_Swift/UI_Minimalist'
          pod 'TUIConversation_Swift/UI_Minimalist'
          pod 'TUIChat_Swift/UI_Classic' # 重复！
          pod 'TUIConversation_Swift/UI_Classic' # 重复！
          pod 'TXIMSDK_Plus_iOS'
        end
        """

    @Test func theArticlesPodfileReadsAsItsTargetAndFivePods() throws {
        let podfile = try Podfile(parsing: Self.article)
        #expect(podfile.platform == Podfile.Platform(name: "ios", version: "13.0"))
        #expect(podfile.usesFrameworks)
        let targets = podfile.concreteTargets
        #expect(targets.map(\.name) == ["IMDemo"])
        #expect(targets.first?.pods.map(\.name) == ["TUIChat_Swift/UI_Minimalist", "TUIConversation_Swift/UI_Minimalist",
                                                     "TUIChat_Swift/UI_Classic", "TUIConversation_Swift/UI_Classic", "TXIMSDK_Plus_iOS"])
        #expect(targets.first?.pods.map(\.line) == [5, 6, 7, 8, 9])
        #expect(targets.first?.pods.first?.rootName == "TUIChat_Swift" && targets.first?.pods.first?.subspec == "UI_Minimalist")
    }

    @Test func nestedAbstractAndInheritingTargetsWithEveryKindOfPod() throws {
        let text = #"""
            source 'https://cdn.cocoapods.org/'
            platform :ios, "14.0"
            use_frameworks! :linkage => :static
            inhibit_all_warnings!
            install! 'cocoapods', :deterministic_uuids => false
            ENV['COCOAPODS_DISABLE_STATS'] = 'true'

            def shared_pods
              pod 'Alamofire', '~> 5.8'
              pod 'SnapKit', '>= 5.0', '< 6'
            end

            abstract_target 'Shared' do
              shared_pods
              pod 'Kingfisher', :git => 'https://github.com/onevcat/Kingfisher.git', :tag => '7.10.0'
              pod 'LocalKit', path: '../LocalKit'
              pod 'Firebase', :subspecs => ['Analytics',
                                             'Crashlytics']

              target 'App' do
                pod 'Lottie', :podspec => 'https://example.com/lottie.podspec'
                target 'AppTests' do
                  inherit! :search_paths
                  pod 'Quick'
                end
              end
              target 'Widget' do
              end
            end

            post_install do |installer|
              installer.pods_project.targets.each do |target|
                target.build_configurations.each do |config|
                  if config.name == 'Debug'
                    config.build_settings['SWIFT_ACTIVE_COMPILATION_CONDITIONS'] = 'DEBUG'
                  end
                end
              end
            end
            """#
        let podfile = try Podfile(parsing: text)
        #expect(podfile.sources == ["https://cdn.cocoapods.org/"] && podfile.usesFrameworks)
        let targets = Dictionary(uniqueKeysWithValues: podfile.concreteTargets.map { ($0.name, $0.pods.map(\.name)) })
        let shared = ["Alamofire", "SnapKit", "Kingfisher", "LocalKit", "Firebase"]
        #expect(targets == ["App": shared + ["Lottie"], "AppTests": ["Quick"], "Widget": shared])
        let pods = podfile.root.children[0].pods
        #expect(pods[1].requirements == [">= 5.0", "< 6"])
        #expect(pods[2].source == .git(url: "https://github.com/onevcat/Kingfisher.git", reference: "7.10.0"))
        #expect(pods[3].source == .path("../LocalKit"))
        #expect(pods[4].subspecs == ["Analytics", "Crashlytics"] && pods[4].line == 17)
        #expect(podfile.root.children[0].isAbstract && podfile.root.children[0].children[0].children[0].inheritance == .searchPaths)
    }

    @Test(arguments: [
        ("target 'App' do\n  pod 'A'\n", 1, "no `end`"),
        ("end\n", 1, "without a block"),
        ("target 'App' do\n  pod 'A\nend\n", 2, "not closed"),
        ("target 'App' do\n  if ENV['CI']\n    pod 'A'\n  end\nend\n", 2, "control flow"),
        ("target 'App' do\n  pod 'A' 'B'\nend\n", 2, "expected `,`"),
        ("target 'App' do\n  pod :A\nend\n", 2, "name in quotes"),
        ("platform\n", 1, "expected `platform"),
        ("frobnicate!\n", 1, "not a Podfile statement"),
        ("pod 'A', :path =>\n", 1, "has no value"),
        ("target 'App'\nend\n", 1, "expected `target 'Name' do`"),
    ])
    func whatItCannotReadIsRefusedWithItsLine(text: String, line: Int, reason: String) {
        #expect {
            try Podfile(parsing: text)
        } throws: { error in
            guard let error = error as? DoctorInputError else { return false }
            return error.file == "Podfile" && error.line == line && error.reason.contains(reason)
        }
    }

    /// Mangled Podfiles (characters replaced, dropped, lines cut) are read or refused, never a crash.
    @Test func mangledPodfilesAreReadOrRefusedNeverACrash() {
        let alphabet = Array("'\"#:=>,[](){}|\\ \ndo end pod target abstract!inherit!")
        var mangler = Mangler(seed: 0x9E37_79B9_7F4A_7C15)
        let refused = mangler.refusals(of: Self.article, count: 3_000, alphabet: alphabet) { (text) throws(DoctorInputError) in _ = try Podfile(parsing: text) }
        #expect(refused > 100, "the mangling reaches the refusals")
    }
}
