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
            .value("url", "URL", help: "Server URL, e.g. ws://127.0.0.1:8080/v1/sync."),
            .value("token", "TOKEN", help: "Token for the room."),
            .value("invite", "CODE", help: "Invitation code to accept instead of a token (not supported yet)."),
            .value("name", "NAME", help: "Display name, announced as presence {\"name\": NAME}."),
            .value("client", "ID", help: "Stable client id (default: random)."),
            .value("drain-timeout", "SECONDS", help: "How long to wait for acks at end of input.", default: "60"),
        ]
    )

    /// What a `tandem join` command line asks for.
    struct Options: Equatable {
        var url: String
        var token: String
        var clientID: String
        var name: String?
        var drainTimeout: Duration
    }

    static let command = Command(spec: spec) { arguments, context in
        let options: Options
        do {
            options = try JoinCommand.options(from: arguments)
        } catch {
            context.console.err("tandem join: error: \(error)")
            context.console.err(spec.usageLine)
            return ExitCode.usage
        }
        let group: EventLoopGroup
        do {
            group = try EventLoopGroup(threads: 1)
        } catch {
            context.console.err("tandem join: error: \(error)")
            return ExitCode.failure
        }
        defer { group.shutdown() }
        let runner = JoinRunner(session: session(for: options, group: group), console: context.console, drainTimeout: options.drainTimeout)
        return await runner.run(lines: standardInputLines())
    }

    /// Validates the command line. `--invite` is refused with a pointer to tokens.
    static func options(from arguments: ParsedArguments) throws(CommandLineError) -> Options {
        if arguments.value("invite") != nil {
            throw .invalidValue(option: "invite", value: arguments.value("invite") ?? "",
                                expected: "a token instead: invitations are not supported by this build (mint one with 'tandem token')")
        }
        let url = try arguments.required("url")
        guard url.hasPrefix("ws://") else {
            throw .invalidValue(option: "url", value: url, expected: "a ws:// URL such as ws://127.0.0.1:8080/v1/sync")
        }
        let seconds = try arguments.integer("drain-timeout", default: 60, in: 0...86_400)
        return Options(
            url: url, token: try arguments.required("token"),
            clientID: arguments.value("client") ?? "cli-\(UUID().uuidString.prefix(8).lowercased())",
            name: arguments.value("name"), drainTimeout: .seconds(seconds))
    }

    /// The session a command line describes.
    static func session(for options: Options, group: EventLoopGroup) -> SyncSession {
        let token = options.token
        return SyncSession(
            url: options.url, clientID: options.clientID, tokenProvider: { token },
            presence: options.name.map { ["name": .string($0)] }, group: group)
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
