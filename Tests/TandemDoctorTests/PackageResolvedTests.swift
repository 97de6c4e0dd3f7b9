import Testing
@testable import TandemDoctor

/// The `Package.resolved` reader on the three formats SwiftPM and Xcode write.
@Suite struct PackageResolvedTests {
    @Test func formatOneNamesThePackageAndItsRepository() throws {
        let resolved = try PackageResolved(parsing: """
            {
              "object": {
                "pins": [
                  {
                    "package": "Alamofire",
                    "repositoryURL": "https://github.com/Alamofire/Alamofire.git",
                    "state": { "branch": null, "revision": "f455c2975872ccd2d9c81594c658af65716e9b9a", "version": "5.8.1" }
                  }
                ]
              },
              "version": 1
            }
            """)
        #expect(resolved.format == 1)
        #expect(resolved.pins == [PackageResolved.Pin(identity: "Alamofire", location: "https://github.com/Alamofire/Alamofire.git",
                                                      version: "5.8.1", revision: "f455c2975872ccd2d9c81594c658af65716e9b9a")])
    }

    @Test(arguments: [2, 3])
    func formatsTwoAndThreeNameTheIdentityAndLocation(format: Int) throws {
        let resolved = try PackageResolved(parsing: """
            {
              \(format == 3 ? "\"originHash\" : \"6f1a2b\"," : "")
              "pins" : [
                {
                  "identity" : "snapkit",
                  "kind" : "remoteSourceControl",
                  "location" : "https://github.com/SnapKit/SnapKit.git",
                  "state" : { "revision" : "2842e6e84e82eb9a8dac0100ca90d9444b0307f4", "version" : "5.7.1" }
                },
                {
                  "identity" : "swift-collections",
                  "kind" : "remoteSourceControl",
                  "location" : "https://github.com/apple/swift-collections",
                  "state" : { "branch" : "main", "revision" : "9bf03ff58ce34478e66aaee630e491823326fd06" }
                }
              ],
              "version" : \(format)
            }
            """)
        #expect(resolved.format == format && resolved.pins.map(\.identity) == ["snapkit", "swift-collections"])
        #expect(resolved.pins[0].version == "5.7.1" && resolved.pins[1].version == nil && resolved.pins[1].revision?.hasPrefix("9bf03ff") == true)
    }

    @Test(arguments: [
        ("{ \"pins\": [], \"version\": 4 }", 1, "format 4"),
        ("{ \"pins\": [] }", 1, "numeric \"version\""),
        ("{\n  \"pins\": [\n    { \"identity\": \"a\", \"location\": \"x\" },\n    { \"identity\": \"b\" }\n  ],\n  \"version\": 2\n}", 4, "pin 2"),
        ("{\n  \"pins\": [\n    { \"identity\": \"a\", \"location\": \"x\" },\n    7\n  ],\n  \"version\": 2\n}", 4, "pin 2"),
        ("{\n  \"pins\": [\n    { \"identity\": \"a\",, }\n  ]\n}", 3, "invalid JSON"),
        ("{ \"object\": {}, \"version\": 1 }", 1, "\"pins\" must be an array"),
    ])
    func whatItCannotReadIsRefusedWithItsLine(text: String, line: Int, reason: String) {
        #expect {
            try PackageResolved(parsing: text)
        } throws: { error in
            guard let error = error as? DoctorInputError else { return false }
            return error.file == "Package.resolved" && error.line == line && error.reason.contains(reason)
        }
    }

    /// Mangled resolutions are read or refused with a line, never a crash.
    @Test func mangledResolutionsAreReadOrRefusedNeverACrash() {
        let text = """
            {
              "pins" : [
                { "identity" : "snapkit", "kind" : "remoteSourceControl", "location" : "https://github.com/SnapKit/SnapKit.git",
                  "state" : { "revision" : "2842e6e", "version" : "5.7.1" } },
                { "identity" : "x\\"y", "location" : "z", "state" : {} }
              ],
              "version" : 2
            }
            """
        var mangler = Mangler(seed: 0xD1B5_4A32_D192_ED03)
        let refused = mangler.refusals(of: text, count: 3_000, alphabet: Array("{}[],:\"\\ \n2")) { (text) throws(DoctorInputError) in
            _ = try PackageResolved(parsing: text)
        }
        #expect(refused > 100)
    }
}
