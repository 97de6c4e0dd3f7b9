import Foundation
import TandemClient
import TandemWire

/// `tandem join`: a terminal participant. Standard input lines are JSON arrays of ops, each
/// applied as one patch; standard output gets one JSON event per line (see `JoinRunner`).
enum JoinCommand {
    static let spec = CommandSpec(
        name: "join",
        summary: "Join a room from the terminal: stdin lines are JSON op arrays, stdout lines JSON events.",
        options: [
            .value("url", "URL", help: "Server URL, e.g. ws://127.0.0.1:8080/v1/sync or wss://… (with --invite also http:// or https://)."),
            .value("token", "TOKEN", help: "Token for the room."),
            .value("invite", "CODE", help: "Invitation code to accept instead of a token."),
            .value("name", "NAME", help: "Display name, announced as presence {\"name\": NAME} (and in the invited token)."),
            .value("client", "ID", help: "Stable client id (default: random)."),
            .value("state", "DIR", help: "Keep the session (client id, pending changes, confirmed state) in this folder: a join started again resends what was not acknowledged, exactly once."),
            .value("ca-file", "FILE", help: "Also trust the CAs in this PEM file for wss:// and https:// (default: the system's trust store)."),
            .value("drain-timeout", "SECONDS", help: "How long to wait for acks at end of input.", default: "60"),
        ]
    )

    /// What a `tandem join` command line asks for.
    struct Options: Equatable {
        var url: String
        /// The token, or nil when an invitation is accepted for one.
        var token: String?
        var clientID: String
        var name: String?
        var drainTimeout: Duration
        /// The invitation to accept for a token, if any.
        var invite: InviteCode? = nil
        /// Extra trusted CAs (PEM), if any.
        var caFile: String? = nil
        /// The folder the session is kept in, if any.
        var stateFolder: String? = nil

        /// The TLS settings of `wss://` and `https://` connections.
        var tls: TLSConfiguration { .client(additionalTrustRoots: caFile.map { [$0] } ?? []) }
    }

    /// An invitation code and the API base URL it is accepted at.
    struct InviteCode: Equatable {
        var code: String
        var api: String
    }

    static let command = Command(spec: spec) { arguments, context in
        guard let options = context.validated(spec, { () throws(CommandLineError) in try JoinCommand.options(from: arguments) }) else {
            return ExitCode.usage
        }
        let ready: Options
        do {
            ready = try await redeemInvite(options)
        } catch {
            context.console.err("tandem join: error: \(error)")
            return ExitCode.failure
        }
        let session: SyncSession
        do {
            session = try Self.session(for: ready)
        } catch {
            context.console.err("tandem join: error: \(error)")
            return ExitCode.failure
        }
        let runner = JoinRunner(session: session, console: context.console, drainTimeout: options.drainTimeout)
        return await runner.run(lines: standardInputLines())
    }

    /// Validates the command line: exactly one of `--token` and `--invite`.
    static func options(from arguments: ParsedArguments) throws(CommandLineError) -> Options {
        let url = try arguments.required("url")
        let seconds = try arguments.integer("drain-timeout", default: 60, in: 0...86_400)
        var options = Options(
            url: url, token: nil,
            clientID: arguments.value("client") ?? "cli-\(UUID().uuidString.prefix(8).lowercased())",
            name: arguments.value("name"), drainTimeout: .seconds(seconds), caFile: try caFile(from: arguments),
            stateFolder: arguments.value("state"))
        if let code = arguments.value("invite") {
            guard arguments.value("token") == nil else {
                throw .invalidValue(option: "invite", value: code, expected: "either --invite or --token, not both")
            }
            guard InvitationCode.isWellFormed(code) else {
                throw .invalidValue(option: "invite", value: code,
                                    expected: "the code of \(InvitationCode.lengths.lowerBound) to \(InvitationCode.lengths.upperBound) digits the host gave you")
            }
            let server = try ServerURL(url, option: "url")
            options.url = server.sync
            options.invite = InviteCode(code: code, api: server.api)
            return options
        }
        guard url.lowercased().hasPrefix("ws://") || url.lowercased().hasPrefix("wss://") else {
            throw .invalidValue(option: "url", value: url, expected: "a ws:// or wss:// URL such as ws://127.0.0.1:8080/v1/sync")
        }
        options.token = try arguments.required("token")
        return options
    }

    /// The `--ca-file` of a command line, checked to be readable.
    static func caFile(from arguments: ParsedArguments) throws(CommandLineError) -> String? {
        guard let path = arguments.value("ca-file") else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw .invalidValue(option: "ca-file", value: path, expected: "a readable PEM file of CA certificates")
        }
        return path
    }

    /// Accepts the invitation `options` carries (if any) and returns options holding the minted token.
    static func redeemInvite(_ options: Options) async throws(InviteError) -> Options {
        guard let invite = options.invite else { return options }
        let accepted = try await InviteClient(baseURL: invite.api, tls: options.tls).acceptInvite(code: invite.code, name: options.name)
        var ready = options
        ready.token = accepted.token
        ready.invite = nil
        return ready
    }

    /// The session a command line describes (after ``redeemInvite(_:)``), restored from `--state` when given.
    /// - Throws: `SyncPersistenceError` when the state folder is in use, damaged or of an unknown format.
    static func session(for options: Options) throws(SyncPersistenceError) -> SyncSession {
        let token = options.token ?? ""
        let persistence = try options.stateFolder.map { (folder) throws(SyncPersistenceError) in try FileSyncPersistence(folder: folder) }
        return SyncSession(
            url: options.url, clientID: options.clientID, tokenProvider: { token },
            presence: options.name.map { ["name": .string($0)] }, transport: WireTransport(tls: options.tls), persistence: persistence)
    }

    /// Standard input as lines, read on a dedicated thread so that a blocking read never holds a
    /// thread of the concurrency pool.
    private static func standardInputLines() -> AsyncStream<String> {
        let (lines, sink) = AsyncStream<String>.makeStream()
        let reader = Thread {
            while let line = readLine(strippingNewline: true) { sink.yield(line) }
            sink.finish()
        }
        reader.start()
        return lines
    }
}
