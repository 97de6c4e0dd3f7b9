/// `tandem token`: mints a token with the server's secret.
enum TokenCommand {
    static let spec = CommandSpec(
        name: "token",
        summary: "Print a token signed with the server's secret.",
        options: [
            .value("room", "R", help: "Room the token grants access to."),
            .value("user", "U", help: "User id (the token's subject)."),
            .value("role", "ROLE", help: "host, guest or viewer.", default: "guest"),
            .value("ttl", "SECONDS", help: "Lifetime in seconds.", default: "3600"),
            .value("name", "NAME", help: "Display name carried in the token."),
            .value("data", "DIR", help: "Data folder holding the secret.", default: "./tandem-data"),
        ]
    )

    static let command = Command.unavailable(spec)
}
