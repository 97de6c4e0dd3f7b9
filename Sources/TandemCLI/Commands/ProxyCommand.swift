#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import TandemProxy
import TandemWire

/// `tandem proxy`: a fault-injecting TCP relay (a `FaultProxy` on a loopback port) that runs until
/// SIGINT or SIGTERM.
enum ProxyCommand {
    static let spec = CommandSpec(
        name: "proxy",
        summary: "Relay TCP with injected latency, jitter, bandwidth caps, resets and blackholes.",
        options: [
            .value("listen", "PORT", help: "Loopback port to listen on (0 picks a free one)."),
            .value("to", "HOST:PORT", help: "Where to relay to."),
            .value("latency", "MS", help: "Added one-way delay per chunk.", default: "0"),
            .value("jitter", "MS", help: "Random extra delay, up to this much.", default: "0"),
            .value("bandwidth", "KBPS", help: "Cap in kilobytes per second; 0 is unlimited.", default: "0"),
            .value("drop-every", "S", help: "Reset every open connection each S seconds."),
            .value("blackhole-every", "S", help: "Stop forwarding on open connections each S seconds."),
            .value("stall-every", "S", help: "Hold everything for --stall milliseconds each S seconds, then let it through in order (loss recovery on weak Wi-Fi)."),
            .value("stall", "MS", help: "How long each stall of --stall-every lasts.", default: "0"),
        ]
    )

    static let command = Command(spec: spec) { arguments, context in
        await run(arguments, context: context, until: waitForTerminationSignal)
    }

    /// What the command line asks for, validated.
    struct Settings: Equatable {
        var listenPort: Int
        var targetHost: String
        var targetPort: Int
        var faults: FaultProxy.Faults
    }

    /// Validates every option.
    /// - Throws: `CommandLineError` for a missing or malformed option.
    static func settings(from arguments: ParsedArguments) throws(CommandLineError) -> Settings {
        guard arguments.value("listen") != nil else { throw .missingOption("listen") }
        let listenPort = try arguments.integer("listen", default: 0, in: 0...65535)
        let (host, port) = try target(try arguments.required("to"))
        let faults = FaultProxy.Faults(
            latency: .milliseconds(try arguments.integer("latency", default: 0, in: 0...600_000)),
            jitter: .milliseconds(try arguments.integer("jitter", default: 0, in: 0...600_000)),
            bandwidthKilobytesPerSecond: try arguments.integer("bandwidth", default: 0, in: 0...10_000_000),
            dropEvery: try period("drop-every", in: arguments),
            blackholeEvery: try period("blackhole-every", in: arguments),
            stallEvery: try period("stall-every", in: arguments),
            stallLength: .milliseconds(try arguments.integer("stall", default: 0, in: 0...600_000))
        )
        return Settings(listenPort: listenPort, targetHost: host, targetPort: port, faults: faults)
    }

    /// Splits `HOST:PORT` (IPv6 hosts in brackets: `[::1]:8080`).
    /// - Throws: `CommandLineError.invalidValue` for `--to` when the host is empty or the port is not 1–65535.
    static func target(_ text: String) throws(CommandLineError) -> (host: String, port: Int) {
        let invalid = CommandLineError.invalidValue(option: "to", value: text, expected: "HOST:PORT with a port from 1 to 65535")
        guard let colon = text.lastIndex(of: ":") else { throw invalid }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains("["), let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { throw invalid }
        return (host, port)
    }

    /// A positive number of seconds (decimals allowed, at least a millisecond), or nil when absent.
    static func period(_ name: String, in arguments: ParsedArguments) throws(CommandLineError) -> Duration? {
        guard let text = arguments.value(name) else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0.001, seconds <= 86_400 else {
            throw .invalidValue(option: name, value: text, expected: "a number of seconds from 0.001 to 86400")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// Runs the proxy until `stop` returns, then closes every connection and returns the exit code.
    static func run(
        _ arguments: ParsedArguments,
        context: CommandContext,
        until stop: @Sendable () async -> Void
    ) async -> Int32 {
        guard let settings = context.validated(spec, { () throws(CommandLineError) in try Self.settings(from: arguments) }) else {
            return ExitCode.usage
        }
        let group: EventLoopGroup
        let proxy: FaultProxy
        do {
            group = try EventLoopGroup(threads: min(2, EventLoopGroup.defaultThreadCount))
        } catch {
            context.console.err("tandem proxy: error: cannot start the event loop: \(error)")
            return ExitCode.failure
        }
        do {
            proxy = try FaultProxy.start(
                listenHost: "127.0.0.1", listenPort: settings.listenPort,
                targetHost: settings.targetHost, targetPort: settings.targetPort,
                faults: settings.faults, group: group
            )
        } catch {
            group.shutdown()
            context.console.err("tandem proxy: error: cannot listen on 127.0.0.1:\(settings.listenPort): \(error)")
            return ExitCode.failure
        }
        let target = settings.targetHost.contains(":") ? "[\(settings.targetHost)]" : settings.targetHost
        context.console.out(
            "tandem proxy: listening on 127.0.0.1:\(proxy.port), relaying to \(target):\(settings.targetPort) with \(settings.faults)")
        await stop()
        await proxy.shutdown()
        let statistics = proxy.statistics
        group.shutdown()
        context.console.err(
            "tandem proxy: stopped after \(statistics.acceptedConnections) connections "
                + "(\(statistics.resetConnections) reset, \(statistics.blackholedConnections) blackholed)")
        return ExitCode.success
    }

    /// Returns when the process receives SIGINT or SIGTERM (their default handlers are disabled first, so
    /// the process is not killed before it closes its connections).
    @Sendable static func waitForTerminationSignal() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            SignalWaiter(signals: [SIGINT, SIGTERM]).wait(continuation)
        }
    }
}

/// Watches a set of signals with dispatch sources and resumes one continuation on the first of them.
private final class SignalWaiter: @unchecked Sendable {
    private let queue = DispatchQueue(label: "tandem.proxy.signals")
    private let signals: [Int32]
    // Touched on `queue` only.
    private var sources: [any DispatchSourceSignal] = []
    private var continuation: CheckedContinuation<Void, Never>?

    init(signals: [Int32]) {
        self.signals = signals
    }

    func wait(_ continuation: CheckedContinuation<Void, Never>) {
        queue.sync {
            self.continuation = continuation
            for number in signals {
                _ = signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { self.fire() }
                source.resume()
                sources.append(source)
            }
        }
    }

    private func fire() {
        for source in sources { source.cancel() }
        sources = []
        continuation?.resume()
        continuation = nil
    }
}
