import Synchronization
import TandemCLI

/// A console that keeps every line, so tests can assert on exactly what a command printed.
final class RecordingConsole: Console {
    private let lines = Mutex<(out: [String], err: [String])>(([], []))

    func out(_ line: String) { lines.withLock { $0.out.append(line) } }
    func err(_ line: String) { lines.withLock { $0.err.append(line) } }

    var stdout: [String] { lines.withLock { $0.out } }
    var stderr: [String] { lines.withLock { $0.err } }
}

/// Runs the standard program on `arguments` and returns its exit code and output.
func runTandem(_ arguments: [String], environment: [String: String] = [:]) async -> (status: Int32, console: RecordingConsole) {
    let console = RecordingConsole()
    let status = await TandemCommandLine.standard().run(arguments, context: CommandContext(console: console, environment: environment))
    return (status, console)
}
