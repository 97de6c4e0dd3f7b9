/// `tandem proxy`: a fault-injecting TCP relay.
enum ProxyCommand {
    static let spec = CommandSpec(
        name: "proxy",
        summary: "Relay TCP with injected latency, jitter, bandwidth caps, resets and blackholes.",
        options: [
            .value("listen", "PORT", help: "Loopback port to listen on."),
            .value("to", "HOST:PORT", help: "Where to relay to."),
            .value("latency", "MS", help: "Added one-way delay per chunk.", default: "0"),
            .value("jitter", "MS", help: "Random extra delay, up to this much.", default: "0"),
            .value("bandwidth", "KBPS", help: "Cap in kilobytes per second; 0 is unlimited.", default: "0"),
            .value("drop-every", "S", help: "Reset every open connection each S seconds."),
            .value("blackhole-every", "S", help: "Stop forwarding on open connections each S seconds."),
        ]
    )

    static let command = Command.unavailable(spec)
}
