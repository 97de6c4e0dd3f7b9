import Testing
@testable import TandemDoctor

/// The `Podfile.lock` reader on the layout CocoaPods writes, and line-precise refusals.
@Suite struct LockfileTests {
    /// A lock matching the article's Podfile: the TUIKit pods depend on the core SDK themselves.
    static let article = """
        PODS:
          - TUIChat_Swift/UI_Classic (7.6.5011):
            - TUIChat_Swift/Core
          - TUIChat_Swift/UI_Minimalist (7.6.5011):
            - TUIChat_Swift/Core
          - TUIChat_Swift/Core (7.6.5011):
            - TUICore (>= 7.6.5011)
            - TXIMSDK_Plus_iOS (>= 7.6.5011)
          - TUIConversation_Swift/UI_Classic (7.6.5011):
            - TUICore
          - TUIConversation_Swift/UI_Minimalist (7.6.5011):
            - TUICore
          - TUICore (7.6.5011):
            - TXIMSDK_Plus_iOS (>= 7.6.5011)
          - TXIMSDK_Plus_iOS (7.6.5011)

        DEPENDENCIES:
          - TUIChat_Swift/UI_Classic
          - TUIChat_Swift/UI_Minimalist
          - TUIConversation_Swift/UI_Classic
          - TUIConversation_Swift/UI_Minimalist
          - TXIMSDK_Plus_iOS

        SPEC REPOS:
          trunk:
            - TUIChat_Swift
            - TUIConversation_Swift
            - TUICore
            - TXIMSDK_Plus_iOS

        SPEC CHECKSUMS:
          TUIChat_Swift: 1f9d4d3b0f1d6c4c8a2e7b1c5d9a0e3f6b8c2d4e
          TXIMSDK_Plus_iOS: 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b

        PODFILE CHECKSUM: 0c1b2a39f8e7d6c5b4a39281706f5e4d3c2b1a09

        COCOAPODS: 1.15.2
        """

    @Test func theArticlesLockReadsAsItsPodsWithTheirDependencies() throws {
        let lock = try Lockfile(parsing: Self.article)
        #expect(lock.pods.count == 7 && lock.pods.first?.line == 2)
        let core = try #require(lock.pods.first { $0.name == "TUIChat_Swift/Core" })
        #expect(core.version == "7.6.5011" && core.rootName == "TUIChat_Swift")
        #expect(core.dependencies == [LockedPod.Dependency(name: "TUICore", requirement: ">= 7.6.5011"),
                                      LockedPod.Dependency(name: "TXIMSDK_Plus_iOS", requirement: ">= 7.6.5011")])
        #expect(lock.pods.last == LockedPod(name: "TXIMSDK_Plus_iOS", version: "7.6.5011", dependencies: [], line: 15))
        #expect(lock.dependencies.map(\.name).last == "TXIMSDK_Plus_iOS")
        #expect(lock.specRepos["trunk"]?.count == 4 && lock.checksums.count == 2 && lock.cocoapodsVersion == "1.15.2")
    }

    @Test func externalSourcesCheckoutOptionsAndQuotedNames() throws {
        let text = """
            PODS:
              - "GoogleUtilities/Environment (7.12.0)":
                - PromisesObjC (< 3.0, >= 1.2)
              - Kingfisher (7.10.0)
              - LocalKit (0.1.0)
              - PromisesObjC (2.3.1)

            DEPENDENCIES:
              - GoogleUtilities/Environment
              - Kingfisher (from `https://github.com/onevcat/Kingfisher.git`, tag `7.10.0`)
              - LocalKit (from `../LocalKit`)

            SPEC REPOS:
              https://github.com/CocoaPods/Specs.git:
                - GoogleUtilities
                - PromisesObjC

            EXTERNAL SOURCES:
              Kingfisher:
                :git: https://github.com/onevcat/Kingfisher.git
                :tag: 7.10.0
              LocalKit:
                :path: "../LocalKit"

            CHECKOUT OPTIONS:
              Kingfisher:
                :git: https://github.com/onevcat/Kingfisher.git
                :tag: 7.10.0

            SPEC CHECKSUMS:
              GoogleUtilities: 0759a1a57ee1a2a4d2b6c30a7a4e8e2b2d5b6a7c
              LocalKit: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4'

            COCOAPODS: 1.12.1
            """
        let lock = try Lockfile(parsing: text)
        #expect(lock.pods.first?.name == "GoogleUtilities/Environment" && lock.pods.first?.dependencies.first?.requirement == "< 3.0, >= 1.2")
        #expect(lock.externalSources["LocalKit"] == ["path": "../LocalKit"])
        #expect(lock.externalSources["Kingfisher"] == ["git": "https://github.com/onevcat/Kingfisher.git", "tag": "7.10.0"])
        #expect(lock.checkoutOptions["Kingfisher"]?["tag"] == "7.10.0")
        #expect(lock.specRepos["https://github.com/CocoaPods/Specs.git"] == ["GoogleUtilities", "PromisesObjC"])
        #expect(lock.checksums["LocalKit"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4")
        #expect(lock.dependencies[1] == LockedPod.Dependency(name: "Kingfisher", requirement: "from `https://github.com/onevcat/Kingfisher.git`, tag `7.10.0`"))
    }

    @Test(arguments: [
        ("PODS:\n  - A (1.0)\n\tB: 1\n", 3, "tab"),
        ("PODS: [A]\n", 1, "flow collections"),
        ("PODS: A\n", 1, "must be a list"),
        ("PODS:\n  - A\n", 2, "`Name (version)`"),
        ("PODS:\n  - A (1.0)\n      - B\n", 3, "indented more"),
        ("SPEC CHECKSUMS:\n  A: 1\n  A: 2\n", 3, "appears twice"),
        ("PODS:\n  - \"A (1.0)\n", 2, "not closed"),
        ("  PODS:\n", 1, "left margin"),
        ("PODS:\n  - &anchor A (1.0)\n", 2, "anchors"),
        ("COCOAPODS: 1.15\nnot a key\n", 2, "expected `key: value`"),
    ])
    func whatItCannotReadIsRefusedWithItsLine(text: String, line: Int, reason: String) {
        #expect {
            try Lockfile(parsing: text)
        } throws: { error in
            guard let error = error as? DoctorInputError else { return false }
            return error.file == "Podfile.lock" && error.line == line && error.reason.contains(reason)
        }
    }

    /// Mangled locks are read or refused, never a crash.
    @Test func mangledLocksAreReadOrRefusedNeverACrash() {
        let alphabet = Array("-: \n\"'#()[]{}&*\t  PODS")
        var mangler = Mangler(seed: 0x2545_F491_4F6C_DD1D)
        let refused = mangler.refusals(of: Self.article, count: 3_000, alphabet: alphabet) { (text) throws(DoctorInputError) in _ = try Lockfile(parsing: text) }
        #expect(refused > 100)
    }
}
