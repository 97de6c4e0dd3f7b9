import Foundation
import Testing
import TandemTestSupport
import TandemProtocol
import TandemServer
import TandemWire
@testable import TandemCLI

@Suite struct ServeCommandTests {
    @Test func flagsMapOntoTheConfiguration() throws {
        let arguments = try ArgumentParser.parse([
            "--host", "::1", "--port", "0", "--data", "/tmp/x", "--rate-limit", "0", "--max-ops", "5",
            "--presence-grace", "100", "--in-memory", "--allow-origin", "https://shop.example",
        ], for: ServeCommand.spec)
        let configuration = try ServeCommand.configuration(from: arguments)
        #expect(configuration.host == "::1")
        #expect(configuration.port == 0)
        #expect(configuration.dataDirectory == "/tmp/x")
        #expect(configuration.rateLimit == 0)
        #expect(configuration.maxOpsPerPatch == 5)
        #expect(configuration.presenceGrace == .milliseconds(100))
        #expect(configuration.inMemoryStorage)
        #expect(configuration.allowedOrigins == ["https://shop.example"])
    }

    @Test("every default the help prints is the one the server runs with: passing it changes nothing")
    func everyPrintedDefaultIsTheConfigurationsOwn() throws {
        let unset = try ServeCommand.configuration(from: ParsedArguments())
        #expect(unset == ServerConfiguration())
        let withDefaults = ServeCommand.spec.options.filter { $0.defaultValue != nil }
        #expect(withDefaults.count >= 30, "the options that print a default")
        for option in withDefaults {
            let arguments = try ArgumentParser.parse(["--\(option.name)", option.defaultValue ?? ""], for: ServeCommand.spec)
            if option.name == "log-level" {
                #expect(try ServeCommand.logLevel(from: arguments) == ServeCommand.logLevel(from: ParsedArguments()))
                continue
            }
            #expect(try ServeCommand.configuration(from: arguments) == unset, "--\(option.name) \(option.defaultValue ?? "") is not the default")
        }
    }

    @Test func loopsSetsTheEventLoopThreadsAndOtherwiseTheDefaultLeavesACoreToTheStorageWriter() throws {
        let set = try ServeCommand.configuration(from: try ArgumentParser.parse(["--loops", "3"], for: ServeCommand.spec))
        #expect(set.eventLoopThreads == 3)
        #expect(try ServeCommand.configuration(from: ParsedArguments()).eventLoopThreads == nil)
        #expect(ServerConfiguration.defaultEventLoopThreads(cores: 2, durableStorage: true) == 1)
        #expect(ServerConfiguration.defaultEventLoopThreads(cores: 8, durableStorage: true) == 7)
        #expect(ServerConfiguration.defaultEventLoopThreads(cores: 1, durableStorage: true) == 1)
        #expect(ServerConfiguration.defaultEventLoopThreads(cores: 2, durableStorage: false) == 2)
        var memory = ServerConfiguration()
        memory.inMemoryStorage = true
        var cluster = ServerConfiguration()
        cluster.redisURL = "redis://127.0.0.1:6379"
        #expect(ServerConfiguration().storesDurably && !memory.storesDurably && !cluster.storesDurably)

        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        configuration.eventLoopThreads = 3
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "loops"], logger: .discarding)
        defer { server.shutdown() }
        #expect(server.eventLoopCount == 3)
        #expect(ServeCommand.banner(server).contains("  loops      3 event-loop threads"))

        // Without --loops a server that stores rooms in SQLite leaves a core to its writer.
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-loops-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        var durable = ServerConfiguration()
        durable.port = 0
        durable.dataDirectory = data
        let durableServer = try SyncServer(configuration: durable, environment: ["TANDEM_SECRET": "loops"], logger: .discarding)
        defer { durableServer.shutdown() }
        #expect(durableServer.eventLoopCount == ServerConfiguration.defaultEventLoopThreads(
            cores: EventLoopGroup.defaultThreadCount, durableStorage: true))
        // Loops poll longer while busy only when they leave a core free: the durable default does.
        #expect(ServerConfiguration.loopsPollLongerWhenBusy(threads: 1, cores: 2))
        #expect(!ServerConfiguration.loopsPollLongerWhenBusy(threads: 2, cores: 2))
        #expect(!ServerConfiguration.loopsPollLongerWhenBusy(threads: 1, cores: 1))
        #expect(durableServer.eventLoopsPollLongerWhenBusy == (durableServer.eventLoopCount < EventLoopGroup.defaultThreadCount))
        #expect(!server.eventLoopsPollLongerWhenBusy || EventLoopGroup.defaultThreadCount > 3)
    }

    @Test func aLoopCountOutsideItsRangeIsAUsageError() async {
        let zero = await runTandem(["serve", "--loops", "0"])
        #expect(zero.status == ExitCode.usage)
        #expect(zero.console.stderr.first == "tandem serve: error: invalid value '0' for '--loops': expected an integer from 1 to 1024")
    }

    @Test func noFlagsGiveTheSpecificationDefaults() throws {
        let configuration = try ServeCommand.configuration(from: ParsedArguments())
        #expect(configuration == ServerConfiguration())
    }

    @Test func badValuesAreUsageErrors() async {
        let port = await runTandem(["serve", "--port", "70000"])
        #expect(port.status == ExitCode.usage)
        #expect(port.console.stderr.first == "tandem serve: error: invalid value '70000' for '--port': expected an integer from 0 to 65535")
        let idle = await runTandem(["serve", "--heartbeat", "5000", "--idle-timeout", "4000"])
        #expect(idle.status == ExitCode.usage)
        #expect(idle.console.stderr.first?.contains("more than the heartbeat interval") == true)
        let publicURL = await runTandem(["serve", "--public-url", "cobrowse.example"])
        #expect(publicURL.status == ExitCode.usage)
        #expect(publicURL.console.stderr.first?.contains("http:// or https://") == true)
    }

    /// Invitation links are `<public URL>/#invite=CODE` and must open the page at `/`.
    @Test func thePublicURLMustBeAnOriginSoInvitationLinksOpenThePage() async {
        for good in ["https://cobrowse.example", "http://10.0.0.5:8080/", "HTTPS://Cobrowse.Example:443"] {
            #expect(ServeCommand.isPageOrigin(good), "\(good)")
        }
        for bad in ["https://cobrowse.example/tandem", "https://cobrowse.example/?x=1", "https://cobrowse.example#a",
                    "https://user@cobrowse.example", "https://", "ftp://cobrowse.example", "https://cobrowse example"] {
            #expect(!ServeCommand.isPageOrigin(bad), "\(bad)")
        }
        let withPath = await runTandem(["serve", "--public-url", "https://cobrowse.example/tandem"])
        #expect(withPath.status == ExitCode.usage)
        #expect(withPath.console.stderr.first?.contains("without a path, query or fragment") == true)
    }

    @Test func invitationFlagsMapOntoTheConfiguration() throws {
        let arguments = try ArgumentParser.parse([
            "--public-url", "https://cobrowse.example", "--invite-token-ttl", "600",
            "--failed-accepts-per-address", "5", "--failed-accepts-global", "50", "--invite-creations-per-minute", "7",
            "--max-connections-per-user", "3", "--invite-code-length", "9",
        ], for: ServeCommand.spec)
        let configuration = try ServeCommand.configuration(from: arguments)
        #expect(configuration.publicURL == "https://cobrowse.example")
        #expect(configuration.inviteTokenTTL == .seconds(600))
        #expect(configuration.failedAcceptsPerAddress == 5 && configuration.failedAcceptsGlobal == 50)
        #expect(configuration.inviteCreationsPerMinute == 7 && configuration.maxConnectionsPerUser == 3 && configuration.inviteCodeLength == 9)
    }

    @Test func tokenRequirementFlagsMapOntoTheConfigurationAndDefaultToNone() throws {
        let arguments = try ArgumentParser.parse([
            "--token-issuer", "https://auth.example", "--token-audience", "tandem", "--max-token-lifetime", "900",
        ], for: ServeCommand.spec)
        #expect(try ServeCommand.configuration(from: arguments).tokenRequirements
            == TokenRequirements(issuer: "https://auth.example", audience: "tandem", maxLifetimeSeconds: 900))
        #expect(try ServeCommand.configuration(from: ArgumentParser.parse([], for: ServeCommand.spec)).tokenRequirements == TokenRequirements())
    }

    @Test func badTokenRequirementFlagsAreUsageErrors() async {
        for arguments in [["--token-issuer", ""], ["--token-audience", ""], ["--max-token-lifetime", "10"]] {
            let result = await runTandem(["serve"] + arguments)
            #expect(result.status == ExitCode.usage, "\(arguments)")
        }
    }

    @Test func clusterFlagsMapOntoTheConfiguration() throws {
        let arguments = try ArgumentParser.parse([
            "--redis", "redis://10.0.0.7:6380", "--node-id", "eu-1", "--presence-ttl", "6000", "--presence-interval", "500",
            "--redis-commit-interval", "500",
        ], for: ServeCommand.spec)
        let configuration = try ServeCommand.configuration(from: arguments)
        #expect(configuration.redisURL == "redis://10.0.0.7:6380")
        #expect(configuration.nodeID == "eu-1")
        #expect(configuration.clusterPresenceTTL == .seconds(6) && configuration.clusterPresenceInterval == .milliseconds(500))
        #expect(configuration.clusterCommitInterval == .microseconds(500))
        #expect(try ServeCommand.configuration(from: ParsedArguments()).clusterCommitInterval == .milliseconds(5))
    }

    @Test("--redis-cluster: --redis names one or more nodes of a Redis Cluster; several without it, or it without --redis, are refused")
    func redisClusterFlag() throws {
        let urls = "redis://10.0.0.7:7000,redis://10.0.0.8:7000"
        let configuration = try ServeCommand.configuration(from: ArgumentParser.parse(["--redis", urls, "--redis-cluster"], for: ServeCommand.spec))
        #expect(configuration.redisURL == urls && configuration.redisCluster)
        #expect(try ServeCommand.configuration(from: ArgumentParser.parse(["--redis", "redis://h:1"], for: ServeCommand.spec)).redisCluster == false)
        #expect(throws: CommandLineError.invalidValue(option: "redis", value: urls,
                                                      expected: "one URL (several name the nodes of a Redis Cluster: add --redis-cluster)")) {
            try ServeCommand.configuration(from: ArgumentParser.parse(["--redis", urls], for: ServeCommand.spec))
        }
        #expect(throws: CommandLineError.invalidValue(option: "redis-cluster", value: "", expected: "to be used together with --redis")) {
            try ServeCommand.configuration(from: ArgumentParser.parse(["--redis-cluster"], for: ServeCommand.spec))
        }
        #expect(throws: CommandLineError.self) {
            try ServeCommand.configuration(from: ArgumentParser.parse(["--redis", "redis://a:1,http://b:2", "--redis-cluster"], for: ServeCommand.spec))
        }
    }

    @Test func webhookFlagsMapOntoTheConfigurationAndRepeat() throws {
        let arguments = try ArgumentParser.parse([
            "--webhook", "https://a.example/hook", "--webhook=http://127.0.0.1:9000/h", "--webhook-secret", "whsec",
            "--webhook-debounce", "250", "--webhook-retry-base", "500", "--webhook-retry-hours", "6", "--retain-days", "3", "--redis", "redis://127.0.0.1:6379",
        ], for: ServeCommand.spec)
        let configuration = try ServeCommand.configuration(from: arguments)
        #expect(configuration.webhookURLs == ["https://a.example/hook", "http://127.0.0.1:9000/h"])
        #expect(configuration.webhookSecret == "whsec" && configuration.webhookDebounce == .milliseconds(250))
        #expect(configuration.webhookRetryBase == .milliseconds(500) && configuration.webhookRetryPeriod == .seconds(6 * 3_600))
        #expect(configuration.retainedAge == .seconds(3 * 86_400), "--retain-days goes with --redis")
        #expect(try ServeCommand.configuration(from: ParsedArguments()).webhookURLs.isEmpty)
    }

    @Test func badWebhookFlagsAreUsageErrors() async {
        let scheme = await runTandem(["serve", "--webhook", "ftp://a.example/hook"])
        #expect(scheme.status == ExitCode.usage)
        #expect(scheme.console.stderr.first?.contains("an http:// or https:// URL") == true)
        let hours = await runTandem(["serve", "--webhook", "http://a.example/", "--webhook-retry-hours", "0"])
        #expect(hours.status == ExitCode.usage)
    }

    @Test("--hsts: with TLS the max-age of Strict-Transport-Security; without TLS or out of range a usage error")
    func hstsFlag() async throws {
        let tls = ["--tls-cert", "/etc/tandem/fullchain.pem", "--tls-key", "/etc/tandem/privkey.pem"]
        let configuration = try ServeCommand.configuration(from: ArgumentParser.parse(tls + ["--hsts", "31536000"], for: ServeCommand.spec))
        #expect(configuration.hstsMaxAge == .seconds(31_536_000))
        #expect(try ServeCommand.configuration(from: ArgumentParser.parse(tls + ["--hsts", "0"], for: ServeCommand.spec)).hstsMaxAge == .zero)
        #expect(try ServeCommand.configuration(from: ArgumentParser.parse(tls, for: ServeCommand.spec)).hstsMaxAge == nil)
        for bad in ["a year", "315360001"] {
            #expect(throws: CommandLineError.self, "\(bad)") {
                try ServeCommand.configuration(from: ArgumentParser.parse(tls + ["--hsts", bad], for: ServeCommand.spec))
            }
        }
        let plain = await runTandem(["serve", "--hsts", "600"])
        #expect(plain.status == ExitCode.usage)
        #expect(plain.console.stderr.first
                == "tandem serve: error: invalid value '600' for '--hsts': expected to be used together with --tls-cert and --tls-key (browsers take HSTS over HTTPS only)")
        #expect(ServeCommand.spec.helpText.contains("--hsts SECONDS"))
    }

    @Test func badClusterFlagsAreUsageErrors() async {
        let scheme = await runTandem(["serve", "--redis", "http://10.0.0.7:6379"])
        #expect(scheme.status == ExitCode.usage)
        #expect(scheme.console.stderr.first?.contains("a redis://HOST:PORT URL") == true)
        let alone = await runTandem(["serve", "--node-id", "eu-1"])
        #expect(alone.status == ExitCode.usage)
        #expect(alone.console.stderr.first?.contains("together with --redis") == true)
        let lapsing = await runTandem(["serve", "--redis", "redis://127.0.0.1", "--presence-ttl", "2000", "--presence-interval", "1500"])
        #expect(lapsing.status == ExitCode.usage)
        #expect(lapsing.console.stderr.first?.contains("at most half of --presence-ttl") == true)
        let pace = await runTandem(["serve", "--redis", "redis://127.0.0.1", "--redis-commit-interval", "-1"])
        #expect(pace.status == ExitCode.usage)
    }

    @Test func serveExitsWithAnErrorWhenRedisDoesNotAnswer() async throws {
        // Held for the whole test: a merely free port could be taken meanwhile by a redis-server that a
        // cluster test starts in parallel, and the command would then join it and serve forever.
        let (port, reservation) = try LoopbackPort.reserve()
        defer { close(reservation) }
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let run = await runTandem(["serve", "--port", "0", "--in-memory", "--data", data, "--redis", "redis://127.0.0.1:\(port)"],
                                  environment: ["TANDEM_SECRET": "cli"])
        #expect(run.status == ExitCode.failure)
        #expect(run.console.stderr.first?.contains("Redis at 127.0.0.1:\(port) does not answer") == true, "\(run.console.stderr)")
    }

    @Test func theBannerPrintsReadyToOpenPageLinksForAHostAndAViewer() throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "banner"], logger: .discarding)
        defer { server.shutdown() }
        let lines = ServeCommand.banner(server)
        let prefix = "http://127.0.0.1:\(server.port)/#token="
        func link(_ label: String) throws -> TokenClaims {
            let line = try #require(lines.first { $0.hasPrefix("  \(label) ") && $0.contains(prefix) }, "no \(label) link in \(lines)")
            let token = try #require(line.components(separatedBy: prefix).last)
            return try server.tokens.verify(token)
        }
        #expect(try link("host").role == .host)
        #expect(try link("viewer").role == .viewer)
        #expect(try link("host").room == "demo")
    }
}
