import Foundation
import Testing
@testable import TandemCluster
import TandemRedis
import TandemTestSupport

/// The cluster's Lua scripts, checked by Lua's own tools as Redis runs them (each file after its prelude):
/// Lua 5.1's compiler parses each (`luac -p`), and luacheck, with `Scripts/Lua/.luacheckrc` (Redis's
/// globals), finds undefined and unused names, shadowing and unreachable code.
@Suite struct LuaScriptCheckTests {
    static let compiler = LanguageTool(["/usr/bin/luac5.1", "/usr/local/bin/luac5.1"], requiredBy: "TANDEM_REQUIRE_LUA")
    static let linter = LanguageTool(["/usr/bin/luacheck", "/usr/local/bin/luacheck"], requiredBy: "TANDEM_REQUIRE_LUA")
    static let folder = InteropPython.packageRoot.appendingPathComponent("Sources/TandemCluster/Scripts/Lua")

    @Test("every script parses as Lua 5.1", .enabled(if: compiler.shouldRun, "luac5.1 is not installed (scripts/test installs lua5.1)"))
    func everyScriptParses() throws {
        for (name, script) in ClusterScripts.all {
            let result = try Self.compiler.check(script.source, named: "\(name).lua", arguments: ["-p"])
            #expect(result.status == 0, "\(name) does not parse: \(result.output)")
        }
    }

    @Test("luacheck finds nothing in any script", .enabled(if: linter.shouldRun, "luacheck is not installed (scripts/test installs lua-check)"))
    func luacheckFindsNothing() throws {
        let config = Self.folder.appendingPathComponent(".luacheckrc").path
        for (name, script) in ClusterScripts.all {
            let result = try Self.linter.check(script.source, named: "\(name).lua", arguments: ["--config", config, "--formatter", "plain", "--codes"])
            #expect(result.status == 0, "luacheck on \(name): \(result.output)")
        }
    }

    @Test("every Lua file in the source tree is what a script Redis runs ends with, or a prelude one starts with")
    func everyFileIsUsed() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { $0.hasSuffix(".lua") }
        #expect(files.count >= 14)
        let scripts = Dictionary(uniqueKeysWithValues: ClusterScripts.all.map { ($0.name, $0.script.source) })
        for file in files {
            let text = try String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
            let name = String(file.dropLast(".lua".count))
            if name.hasSuffix("-prelude") {
                #expect(scripts.values.contains { $0.hasPrefix(text) }, "no script runs after \(file)")
            } else {
                #expect(scripts[name]?.hasSuffix(text) == true, "\(file) is not the script ClusterScripts.all calls \(name)")
            }
        }
        #expect(Set(scripts.keys).isSubset(of: files.map { String($0.dropLast(".lua".count)) }))
    }
}
