import Foundation
import TandemProtocol
import TandemServer
import TandemWire

/// `tandem token`: mints a token with the server's secret and prints it alone on stdout.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token",
        summary: "Print a token signed with the server's secret.",
        options: [
            .value("room", "R", help: "Room the token grants access to; '*' for a backend token (every room, over the HTTP API only)."),
            .value("user", "U", help: "User id (the token's subject)."),
            .value("role", "ROLE", help: "host, guest or viewer.", default: "guest"),
            .value("ttl", "SECONDS", help: "Lifetime in seconds.", default: "3600"),
            .value("name", "NAME", help: "Display name carried in the token."),
            .value("data", "DIR", help: "Data folder holding the secret.", default: "./tandem-data"),
        ]
    )

    static let command = Command(spec: spec) { arguments, context in
        do throws(CommandLineError) {
            let room = try arguments.required("room")
            let user = try arguments.required("user")
            let role = Role(rawValue: try arguments.choice("role", default: "guest", among: Role.allCases.map(\.rawValue)))!
            let ttl = try arguments.integer("ttl", default: 3600, in: 1...(10 * 365 * 86_400))
            if room != TokenClaims.anyRoom {
                do throws(RoomNameError) {
                    try RoomName.check(room)
                } catch {
                    throw .invalidValue(option: "room", value: room, expected: "a room name (\(error.description)), or '*' for a backend")
                }
            }
            guard !user.isEmpty else { throw .invalidValue(option: "user", value: user, expected: "a non-empty user id") }
            let secret: ServerSecret
            do {
                secret = try ServerSecret.load(environment: context.environment, dataDirectory: arguments.value("data") ?? "./tandem-data")
            } catch {
                context.console.err("tandem token: error: \(error)")
                return ExitCode.failure
            }
            let now = Int64(Date().timeIntervalSince1970)
            let claims = TokenClaims(sub: user, room: room, role: role, exp: now + Int64(ttl), name: arguments.value("name"))
            context.console.out(JWT.sign(claims) { Digest.hmacSHA256(key: secret.key, message: $0) })
            return ExitCode.success
        } catch {
            context.console.err("tandem token: error: \(error)")
            context.console.err(spec.usageLine)
            return ExitCode.usage
        }
    }
}
