import TandemClient
import TandemProtocol
import TandemWire

/// `tandem invite`: asks a server for an invitation to the host's room and prints its code and URL.
enum InviteCommand {
    static let spec = CommandSpec(
        name: "invite",
        summary: "Create an invitation code for your room (needs a host token); prints the code and its URL.",
        options: [
            .value("url", "URL", help: "Server URL, e.g. http://127.0.0.1:8080 or https://…"),
            .value("token", "TOKEN", help: "A host's token for the room."),
            .value("role", "ROLE", help: "guest or viewer.", default: "guest"),
            .value("ttl", "SECONDS", help: "How long the code can be used.", default: "1200"),
            .value("uses", "N", help: "How many people can use the code.", default: "1"),
            .value("ca-file", "FILE", help: "Also trust the CAs in this PEM file for https:// (default: the system's trust store)."),
        ]
    )

    /// What a `tandem invite` command line asks for.
    struct Options: Equatable {
        var server: ServerURL
        var token: String
        var role: Role
        var ttl: Int
        var uses: Int
        var caFile: String? = nil
    }

    static let command = Command(spec: spec) { arguments, context in
        guard let options = context.validated(spec, { () throws(CommandLineError) in try InviteCommand.options(from: arguments) }) else {
            return ExitCode.usage
        }
        let client = InviteClient(baseURL: options.server.api, token: options.token,
                                  tls: .client(additionalTrustRoots: options.caFile.map { [$0] } ?? []))
        do {
            let invitation = try await client.createInvite(role: options.role, ttl: options.ttl, uses: options.uses)
            context.console.out(invitation.code)
            context.console.out(invitation.url ?? "")
            return ExitCode.success
        } catch {
            context.console.err("tandem invite: error: \(error)")
            return ExitCode.failure
        }
    }

    /// Validates the command line.
    static func options(from arguments: ParsedArguments) throws(CommandLineError) -> Options {
        let server = try ServerURL(try arguments.required("url"), option: "url")
        let token = try arguments.required("token")
        guard !token.isEmpty else { throw .invalidValue(option: "token", value: token, expected: "a host's token") }
        let role = Role(rawValue: try arguments.choice("role", default: "guest", among: [Role.guest.rawValue, Role.viewer.rawValue]))!
        let ttl = try arguments.integer("ttl", default: 1200, in: 1...(7 * 86_400))
        let uses = try arguments.integer("uses", default: 1, in: 1...1000)
        return Options(server: server, token: token, role: role, ttl: ttl, uses: uses, caFile: try JoinCommand.caFile(from: arguments))
    }
}
