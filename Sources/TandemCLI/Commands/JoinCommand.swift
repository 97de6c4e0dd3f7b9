/// `tandem join`: a terminal participant.
enum JoinCommand {
    static let spec = CommandSpec(
        name: "join",
        summary: "Join a room from the terminal: stdin lines are JSON op arrays, stdout lines JSON events.",
        options: [
            .value("url", "URL", help: "Server URL, e.g. ws://127.0.0.1:8080/v1/sync."),
            .value("token", "TOKEN", help: "Token for the room."),
            .value("invite", "CODE", help: "Invitation code to accept instead of a token."),
            .value("name", "NAME", help: "Display name when joining with an invitation."),
            .value("client", "ID", help: "Stable client id (default: random)."),
            .value("drain-timeout", "SECONDS", help: "How long to wait for acks at end of input.", default: "60"),
        ]
    )

    static let command = Command.unavailable(spec)
}
