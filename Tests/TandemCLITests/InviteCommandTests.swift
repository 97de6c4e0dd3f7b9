import Testing
import TandemClient
import TandemProtocol
import TandemWire
@testable import TandemCLI

@Suite struct InviteCommandTests {
    @Test func anInvitationPrintedByInviteLetsJoinEnterAsAGuest() async throws {
        let harness = try JoinHarness()
        let base = "http://127.0.0.1:\(harness.server.port)"
        let invite = await runTandem(["invite", "--url", base, "--token", harness.token(user: "alice"), "--ttl", "300", "--uses", "2"])
        #expect(invite.status == ExitCode.success)
        let output = invite.console.stdout
        #expect(output.count == 2)
        let code = try #require(output.first)
        #expect(code.count == 6)
        #expect(output.last == "\(base)/#invite=\(code)")

        let arguments = ParsedArguments(values: ["url": base, "invite": code, "name": "Bob", "client": "bob-1"])
        let options = try await JoinCommand.redeemInvite(try JoinCommand.options(from: arguments))
        #expect(options.url == harness.server.syncURL)
        let claims = try harness.server.tokens.verify(try #require(options.token))
        #expect(claims.role == .guest && claims.name == "Bob")
        let run = await harness.join([#"[{"op":"set","path":"/bob","value":1}]"#], options: options)
        #expect(run.status == ExitCode.success)

        // The second use through the ws:// form of the URL; a third is refused.
        let wsArguments = ParsedArguments(values: ["url": harness.server.syncURL, "invite": code])
        _ = try await JoinCommand.redeemInvite(try JoinCommand.options(from: wsArguments))
        await #expect { _ = try await JoinCommand.redeemInvite(try JoinCommand.options(from: wsArguments)) } throws: { error in
            if case InviteError.gone = error { true } else { false }
        }
        await harness.shutdown()
    }

    @Test func aGuestTokenCannotInviteAndTheCommandSaysWhy() async throws {
        let harness = try JoinHarness()
        let run = await runTandem(["invite", "--url", "http://127.0.0.1:\(harness.server.port)", "--token", harness.token(user: "g", role: .guest)])
        #expect(run.status == ExitCode.failure)
        #expect(run.console.stderr.first?.contains("only a host may do this") == true)
        await harness.shutdown()
    }

    @Test func commandLineErrorsAreUsageErrors() async {
        let noURL = await runTandem(["invite", "--token", "t"])
        #expect(noURL.status == ExitCode.usage)
        #expect(noURL.console.stderr.first == "tandem invite: error: missing required option '--url'")
        let noToken = await runTandem(["invite", "--url", "http://127.0.0.1:1"])
        #expect(noToken.console.stderr.first == "tandem invite: error: missing required option '--token'")
        let host = await runTandem(["invite", "--url", "http://127.0.0.1:1", "--token", "t", "--role", "host"])
        #expect(host.status == ExitCode.usage)
        #expect(host.console.stderr.first?.contains("one of guest, viewer") == true)
        let ttl = await runTandem(["invite", "--url", "http://127.0.0.1:1", "--token", "t", "--ttl", "0"])
        #expect(ttl.status == ExitCode.usage)
        let uses = await runTandem(["invite", "--url", "http://127.0.0.1:1", "--token", "t", "--uses", "many"])
        #expect(uses.status == ExitCode.usage)
        let scheme = await runTandem(["invite", "--url", "ftp://x", "--token", "t"])
        #expect(scheme.status == ExitCode.usage)
        #expect(scheme.console.stderr.first?.contains("http://, https://, ws:// or wss://") == true)
        let unreachable = await runTandem(["invite", "--url", "http://127.0.0.1:1", "--token", "t"])
        #expect(unreachable.status == ExitCode.failure)
        #expect(unreachable.console.stderr.first?.contains("cannot reach the server") == true)
    }

    @Test func serverURLsAreDerivedFromEitherForm() throws {
        #expect(try ServerURL("http://h:1", option: "url") == ServerURL(sync: "ws://h:1/v1/sync", api: "http://h:1"))
        #expect(try ServerURL("http://h:1/", option: "url") == ServerURL(sync: "ws://h:1/v1/sync", api: "http://h:1"))
        #expect(try ServerURL("ws://[::1]:2/custom", option: "url") == ServerURL(sync: "ws://[::1]:2/custom", api: "http://[::1]:2"))
        #expect(try ServerURL("https://h", option: "url") == ServerURL(sync: "wss://h/v1/sync", api: "https://h"))
        #expect(try ServerURL("wss://h:3/custom", option: "url") == ServerURL(sync: "wss://h:3/custom", api: "https://h:3"))
        #expect(throws: CommandLineError.self) { try ServerURL("http://", option: "url") }
        #expect(throws: CommandLineError.self) { try ServerURL("ftp://h", option: "url") }
    }
}
