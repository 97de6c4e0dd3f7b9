import Foundation
import Testing
import TandemCLI
import TandemProtocol

/// `tandem doctor` on files: where it finds its inputs, what it prints, and its exit codes.
@Suite struct DoctorCommandTests {
    /// A project folder in the temporary directory, removed by the caller.
    struct Project {
        let folder: String

        init() {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-doctor-\(UUID().uuidString)").path
        }

        func write(_ path: String, _ text: String) throws {
            let full = (folder as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }

        var podfile: String { (folder as NSString).appendingPathComponent("Podfile") }

        func remove() { try? FileManager.default.removeItem(atPath: folder) }
    }

    static let podfile = """
        platform :ios, '13.0'
        use_frameworks!

        target 'IMDemo' do
          pod 'TUIChat_Swift/UI_Minimalist'
          pod 'TUIChat_Swift/UI_Classic'
          pod 'TXIMSDK_Plus_iOS'
          pod 'Alamofire'
        end
        """

    static let lock = """
        PODS:
          - Alamofire (5.8.1)
          - TUIChat_Swift/Core (7.6.5011):
            - TXIMSDK_Plus_iOS (>= 7.6.5011)
          - TUIChat_Swift/UI_Classic (7.6.5011):
            - TUIChat_Swift/Core
          - TUIChat_Swift/UI_Minimalist (7.6.5011):
            - TUIChat_Swift/Core
          - TXIMSDK_Plus_iOS (7.6.5011)

        DEPENDENCIES:
          - Alamofire
          - TUIChat_Swift/UI_Classic
          - TUIChat_Swift/UI_Minimalist
          - TXIMSDK_Plus_iOS

        COCOAPODS: 1.15.2
        """

    static let spec = """
        { "name": "TUIChat_Swift", "version": "7.6.5011", "module_name": "TUIChat",
          "subspecs": [ { "name": "Core", "source_files": "Core/*.swift" },
                        { "name": "UI_Minimalist", "vendored_frameworks": "Minimalist/TUIChatUI.xcframework" },
                        { "name": "UI_Classic", "vendored_frameworks": "Classic/TUIChatUI.xcframework" } ] }
        """

    static let resolved = """
        { "pins": [ { "identity": "alamofire", "kind": "remoteSourceControl", "location": "https://github.com/Alamofire/Alamofire.git",
                      "state": { "revision": "f455c29", "version": "5.9.0" } } ], "version": 2 }
        """

    @Test func findsEveryMistakeFromTheFilesWhereCocoaPodsAndXcodePutThem() async throws {
        let project = Project()
        defer { project.remove() }
        try project.write("Podfile", Self.podfile)
        try project.write("Podfile.lock", Self.lock)
        try project.write("Pods/Local Podspecs/TUIChat_Swift.podspec.json", Self.spec)
        try project.write("IMDemo.xcworkspace/xcshareddata/swiftpm/Package.resolved", Self.resolved)

        let (status, console) = await runTandem(["doctor", "--podfile", project.podfile])
        #expect(status == ExitCode.failure)
        let text = console.stdout.joined(separator: "\n")
        #expect(text.contains("Pods/Local Podspecs (1 podspec)") && text.contains("IMDemo.xcworkspace/xcshareddata/swiftpm/Package.resolved"))
        #expect(text.contains("3 findings:"))
        #expect(text.contains("redundant_declaration (target IMDemo, \(project.podfile):7)"))
        #expect(text.contains("alternative_subspecs (target IMDemo, \(project.podfile):6)"))
        #expect(text.contains("  proof: TUIChat_Swift/UI_Minimalist → TUIChatUI.framework (`Minimalist/TUIChatUI.xcframework`)"))
        #expect(text.contains("package_in_both_managers (\(project.podfile):8)"))
        #expect(text.contains("  fix:   remove `pod 'TXIMSDK_Plus_iOS'` (line 7)"))

        let (jsonStatus, jsonConsole) = await runTandem(["doctor", "--podfile", project.podfile, "--json"])
        #expect(jsonStatus == ExitCode.failure && jsonConsole.stdout.count == 1)
        let document = try JSONValue.parse(jsonConsole.stdout.joined())
        guard case .object(let root) = document, case .array(let findings)? = root["findings"], case .array(let read)? = root["read"] else {
            Issue.record("not the report's shape: \(document)")
            return
        }
        #expect(read.count == 4)
        let kinds = findings.compactMap { finding -> String? in
            if case .object(let members) = finding, case .string(let kind)? = members["kind"] { kind } else { nil }
        }
        #expect(kinds == ["redundant_declaration", "alternative_subspecs", "package_in_both_managers"])
        guard case .object(let first)? = findings.first else { return }
        #expect(first["line"] == .number(7) && first["target"] == .string("IMDemo"))
        #expect(first["paths"] == .array([.array([.string("TUIChat_Swift/UI_Minimalist"), .string("TUIChat_Swift/Core"), .string("TXIMSDK_Plus_iOS")])]))
    }

    @Test func aHealthyProjectExitsZeroAndSaysWhatItRead() async throws {
        let project = Project()
        defer { project.remove() }
        try project.write("Podfile", "target 'App' do\n  pod 'Alamofire'\nend\n")
        try project.write("Podfile.lock", "PODS:\n  - Alamofire (5.8.1)\n\nDEPENDENCIES:\n  - Alamofire\n")
        let (status, console) = await runTandem(["doctor", "--podfile", project.podfile])
        #expect(status == ExitCode.success)
        #expect(console.stdout == ["read: \(project.podfile), \(project.folder)/Podfile.lock", "no findings"])
        let (jsonStatus, jsonConsole) = await runTandem(["doctor", "--podfile", project.podfile, "--json"])
        #expect(jsonStatus == ExitCode.success && jsonConsole.stdout.first?.hasPrefix("{\"findings\":[],") == true)
    }

    @Test func unreadableInputExitsTwoNamingTheFileAndLine() async throws {
        let project = Project()
        defer { project.remove() }
        try project.write("Podfile", "target 'App' do\n  pod 'Alamofire'\nend\n")
        let (missing, missingConsole) = await runTandem(["doctor", "--podfile", project.podfile])
        #expect(missing == ExitCode.usage)
        #expect(missingConsole.stderr.first == "tandem doctor: error: \(project.folder)/Podfile.lock: no such file (the Podfile's lock, written by `pod install`; name it with --lock)")

        try project.write("Podfile.lock", "PODS:\n  - Alamofire\n")
        let (invalid, invalidConsole) = await runTandem(["doctor", "--podfile", project.podfile])
        #expect(invalid == ExitCode.usage)
        #expect(invalidConsole.stderr.first?.hasPrefix("tandem doctor: error: \(project.folder)/Podfile.lock:2: a locked pod is `Name (version)`") == true)

        try project.write("Podfile.lock", "PODS:\n  - Alamofire (5.8.1)\n")
        try project.write("specs/Broken.podspec.json", "{\n  \"name\": \"Broken\",\n  \"version\": }\n")
        let (badSpec, badSpecConsole) = await runTandem(["doctor", "--podfile", project.podfile, "--specs", "\(project.folder)/specs"])
        #expect(badSpec == ExitCode.usage)
        #expect(badSpecConsole.stderr.first?.hasPrefix("tandem doctor: error: \(project.folder)/specs/Broken.podspec.json:3: invalid JSON") == true)

        let (noSpecs, noSpecsConsole) = await runTandem(["doctor", "--podfile", project.podfile, "--specs", "\(project.folder)/nowhere"])
        #expect(noSpecs == ExitCode.usage && noSpecsConsole.stderr.first?.contains("nowhere: no such file") == true)
    }
}
