import TandemClient
import TandemProtocol

/// `tandem replay`: prints a room's history as JSON lines, each with the state right after it, at the
/// pace it was recorded (times `--speed`), and with `--follow` goes on with what happens live.
enum ReplayCommand {
    static let spec = CommandSpec(
        name: "replay",
        summary: "Print a room's history as JSON lines ({rev,time,user,ops,state}) at its recorded pace; --follow goes on live.",
        options: [
            .value("url", "URL", help: "Server URL, e.g. http://127.0.0.1:8080 or https://…"),
            .value("token", "TOKEN", help: "A token of the room, or a backend token (room '*', then --room is needed)."),
            .value("room", "R", help: "The room (default: the one the token names)."),
            .value("from", "REV", help: "Start after this rev (its state is read first).", default: "0"),
            .value("speed", "X", help: "Pace: the recorded gaps divided by X; 0 prints as fast as possible.", default: "1"),
            .flag("follow", help: "After the end of the history, go on printing new patches until interrupted."),
            .value("ca-file", "FILE", help: "Also trust the CAs in this PEM file for https:// (default: the system's trust store)."),
        ]
    )

    /// What a `tandem replay` command line asks for.
    struct Options: Equatable {
        var server: ServerURL
        var token: String
        var room: String
        var from: Int64
        var speed: Double
        var follow: Bool
        var caFile: String? = nil
    }

    /// How long `--follow` waits between two looks at the history once it reached the head.
    static let followInterval = Duration.milliseconds(250)

    static let command = Command(spec: spec) { arguments, context in
        guard let options = context.validated(spec, { () throws(CommandLineError) in try ReplayCommand.options(from: arguments) }) else {
            return ExitCode.usage
        }
        let client = RoomsClient(baseURL: options.server.api, token: options.token,
                                 tls: .client(additionalTrustRoots: options.caFile.map { [$0] } ?? []))
        do {
            try await replay(options, client: client) { context.console.out($0) }
            return ExitCode.success
        } catch {
            context.console.err("tandem replay: error: \(error)")
            return ExitCode.failure
        }
    }

    /// Prints the history after `options.from` through `print`, paced, then follows when asked; returns at
    /// the end of the history (or, following, once the task is cancelled).
    static func replay(_ options: Options, client: RoomsClient, clock: any Clock<Duration> = ContinuousClock(),
                       print: (String) -> Void) async throws(RoomsClientError) {
        let start: JSONValue = options.from == 0 ? .emptyObject : try await client.state(options.room, rev: options.from)
        var document = Document(start) ?? Document()
        var after = options.from
        var previousTime: Int64?
        var epoch: String?
        while !Task.isCancelled {
            let page = try await client.history(options.room, after: after)
            if let epoch, page.epoch != epoch {
                throw .invalidResponse("the room started anew (epoch \(page.epoch) after \(epoch)): its history before is gone")
            }
            epoch = page.epoch
            for patch in page.patches {
                if let previousTime, options.speed > 0, patch.time > previousTime {
                    let gap = Double(patch.time - previousTime) / options.speed
                    try? await clock.sleep(for: .milliseconds(Int64(gap.rounded())))
                }
                previousTime = patch.time
                do {
                    try document.apply(patch.ops, limits: .unlimited)
                } catch {
                    throw .invalidResponse("rev \(patch.rev) does not apply to the state before it: \(error)")
                }
                print(line(patch, state: document.root))
                after = patch.rev
            }
            guard page.next == nil else { continue }
            guard options.follow else { return }
            // The recorded pace does not apply to what is live.
            previousTime = nil
            try? await clock.sleep(for: followInterval)
        }
    }

    /// One output line: `{"ops","rev","state","time","user"}` (members in UTF-8 order).
    static func line(_ patch: RecordedPatch, state: JSONValue) -> String {
        let value: JSONValue = .object([
            "rev": .number(Double(patch.rev)), "time": .number(Double(patch.time)), "user": .string(patch.user),
            "ops": .array(patch.ops.map(\.jsonValue)), "state": state,
        ])
        return String(decoding: value.serializedBytes(), as: UTF8.self)
    }

    /// Validates the command line.
    static func options(from arguments: ParsedArguments) throws(CommandLineError) -> Options {
        let server = try ServerURL(try arguments.required("url"), option: "url")
        let token = try arguments.required("token")
        guard !token.isEmpty else { throw .invalidValue(option: "token", value: token, expected: "a token of the room or a backend token") }
        let room: String
        if let named = arguments.value("room") {
            guard !named.isEmpty else { throw .invalidValue(option: "room", value: named, expected: "a room name") }
            room = named
        } else {
            guard let claims = try? JWT.unverifiedClaims(token) else {
                throw .invalidValue(option: "token", value: "…", expected: "a Tandem token (or name the room with --room)")
            }
            guard claims.room != TokenClaims.anyRoom else {
                throw .invalidValue(option: "room", value: "", expected: "the room to replay (a backend token names none)")
            }
            room = claims.room
        }
        let from = try arguments.integer("from", default: 0, in: 0...Int(Int32.max) * 1_000_000)
        let speedText = arguments.value("speed") ?? "1"
        guard let speed = Double(speedText), speed >= 0, speed.isFinite else {
            throw .invalidValue(option: "speed", value: speedText, expected: "a number ≥ 0 (0: as fast as possible)")
        }
        return Options(server: server, token: token, room: room, from: Int64(from), speed: speed, follow: arguments.flag("follow"),
                       caFile: try JoinCommand.caFile(from: arguments))
    }
}
