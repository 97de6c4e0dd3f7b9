/// `tandem serve`: runs the sync server.
enum ServeCommand {
    static let spec = CommandSpec(
        name: "serve",
        summary: "Run the Tandem sync server.",
        options: [
            .value("host", "HOST", help: "Address to listen on.", default: "127.0.0.1"),
            .value("port", "PORT", help: "TCP port to listen on.", default: "8080"),
            .value("data", "DIR", help: "Data folder (storage, secret).", default: "./tandem-data"),
            .value("rate-limit", "N", help: "Messages per second per connection; 0 turns the limit off.", default: "60"),
        ]
    )

    static let command = Command.unavailable(spec)
}
