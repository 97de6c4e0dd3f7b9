/// `tandem demo`: two scripted participants over an impaired link.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "demo",
        summary: "Run an in-process server and two participants over an impaired link, and report convergence.",
        options: []
    )

    static let command = Command.unavailable(spec)
}
