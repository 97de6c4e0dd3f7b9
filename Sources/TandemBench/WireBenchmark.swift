import Foundation
import TandemSynchronization
import TandemSubprocess
import TandemWire

/// `tandem bench wire`: WebSocket frame decoding (with unmasking) against a plain memory copy of the same
/// bytes, and echo round trips per second over loopback against the Python `websockets` reference server,
/// with 1 and with 1,000 connections, all measured in the same run.
enum WireBenchmark {
    /// Decoding must sustain at least this many bytes per second on 1 KiB frames.
    static let decodeTargetBytesPerSecond = 1e9
    /// Tandem's echo server must complete at least this many times the reference's round trips per second.
    static let echoTargetRatio = 5.0
    static let frameSize = 1024
    static let framesPerBatch = 1024
    /// The socket read size the decoder is fed with, like the event loop's read buffer.
    static let readSize = 64 * 1024
    static let echoWindow: Duration = .seconds(1)

    static let suite = BenchSuite(
        name: "wire",
        summary: "frame decode+unmask vs. memcpy; echo round trips/s vs. Python websockets (1 and 1,000 connections)"
    ) { runs, console in
        await measure(runs: runs, console: console)
    }

    static func measure(runs: Int, console: BenchConsole) async -> Bool {
        var status = true

        let (decode, copy) = decodeThroughput(runs: runs)
        console.out("decode: \(framesPerBatch) masked \(frameSize)-byte binary frames per batch, fed in \(readSize / 1024) KiB reads; median of \(runs) runs")
        console.out(row("measurement", "MB/s", "× memcpy"))
        console.out(row("memcpy of the same bytes (reference)", format(copy / 1e6), "1.00"))
        console.out(row("WebSocketFrameDecoder (server role)", format(decode / 1e6), format(decode / copy)))
        if decode < decodeTargetBytesPerSecond {
            console.out("MISSED: decode \(format(decode / 1e6)) MB/s (target ≥ \(format(decodeTargetBytesPerSecond / 1e6)) MB/s)")
            status = false
        } else {
            console.out("ok: decode \(format(decode / 1e6)) MB/s (target ≥ \(format(decodeTargetBytesPerSecond / 1e6)) MB/s)")
        }

        do {
            _ = try? FileDescriptorLimit.raiseSoftLimitToHard()
            let reference = try ReferenceEchoServer()
            defer { reference.stop() }
            let serverGroup = try EventLoopGroup(threads: 1)
            defer { serverGroup.shutdown() }
            let loadGroup = try EventLoopGroup(threads: 1)
            defer { loadGroup.shutdown() }
            var configuration = WebSocketServerConfiguration()
            configuration.port = 0
            configuration.idleTimeout = nil
            let server = try WebSocketServer.start(configuration: configuration, group: serverGroup, routes: { _ in nil }) { _, _ in
                EchoHandler()
            }
            defer { server.shutdown(timeout: .seconds(2)) }
            let tandemURL = "ws://127.0.0.1:\(server.port)/v1/sync"
            let referenceURL = "ws://127.0.0.1:\(reference.port)/"
            console.out("echo: 32-byte text messages, each connection keeps one in flight; \(format(Double(echoWindow.components.seconds))) s windows, median of \(runs) runs")
            console.out("      server and load generator each on one event-loop thread; the reference is one Python asyncio process")
            console.out("      CPU µs per round trip: the server's (its loop thread; the whole Python process) / the load generator's thread")
            console.out(row("measurement", "round trips/s", "× reference") + "   CPU µs/rt server / load")
            let serverCPU = CPUClock.thread(of: serverGroup.next())
            let referenceCPU = CPUClock.process(reference.processIdentifier)
            let loadCPU = CPUClock.thread(of: loadGroup.next())
            for connections in [1, 1000] {
                var ours: [EchoSample] = []
                var theirs: [EchoSample] = []
                let tandemLoad = try await EchoLoad.open(url: tandemURL, connections: connections, group: loadGroup)
                let referenceLoad = try await EchoLoad.open(url: referenceURL, connections: connections, group: loadGroup)
                for _ in 0..<runs {
                    theirs.append(try await referenceLoad.measure(over: echoWindow, server: referenceCPU, load: loadCPU))
                    ours.append(try await tandemLoad.measure(over: echoWindow, server: serverCPU, load: loadCPU))
                }
                await tandemLoad.close()
                await referenceLoad.close()
                let ratio = ours.map(\.roundTripsPerSecond).median / theirs.map(\.roundTripsPerSecond).median
                console.out(row("python websockets, \(connections) conn. (reference)", format(theirs.map(\.roundTripsPerSecond).median), "1.00")
                    + cpuColumns(theirs))
                console.out(row("tandem WebSocketServer, \(connections) conn.", format(ours.map(\.roundTripsPerSecond).median), format(ratio))
                    + cpuColumns(ours))
                if ratio < echoTargetRatio {
                    console.out("MISSED: echo with \(connections) connection(s) \(format(ratio))× the reference (target ≥ \(format(echoTargetRatio))×)")
                    status = false
                } else {
                    console.out("ok: echo with \(connections) connection(s) \(format(ratio))× the reference (target ≥ \(format(echoTargetRatio))×)")
                }
            }
        } catch {
            console.err("tandem bench wire: error: \(error)")
            return false
        }
        return status
    }

    // MARK: - Decode

    /// Bytes per second of decoding and of copying the same wire bytes, medians over `runs`.
    static func decodeThroughput(runs: Int) -> (decode: Double, copy: Double) {
        var wire: [UInt8] = []
        let payload = (0..<frameSize).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for index in 0..<framesPerBatch {
            payload.withUnsafeBytes {
                WebSocketFrameEncoder.encodeFrame(opcode: .binary, payload: $0, maskKey: 0x9E37_79B9 &+ UInt32(index), into: &wire)
            }
        }
        let batchesPerRun = 64
        var decodeRates: [Double] = []
        var copyRates: [Double] = []
        var sink = 0
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { destination.deallocate() }
        for _ in 0..<runs {
            // Alternate the two so load on a shared machine hits both alike.
            copyRates.append(rate(bytes: wire.count * batchesPerRun) {
                wire.withUnsafeBytes { raw in
                    for _ in 0..<batchesPerRun {
                        var offset = 0
                        while offset < raw.count {
                            let count = min(readSize, raw.count - offset)
                            destination.baseAddress!.copyMemory(from: raw.baseAddress! + offset, byteCount: count)
                            sink &+= Int(destination[count - 1])
                            offset += count
                        }
                    }
                }
            })
            decodeRates.append(rate(bytes: wire.count * batchesPerRun) {
                var decoder = WebSocketFrameDecoder(role: .server)
                wire.withUnsafeBytes { raw in
                    for _ in 0..<batchesPerRun {
                        var offset = 0
                        while offset < raw.count {
                            let count = min(readSize, raw.count - offset)
                            decoder.append(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]))
                            while let frame = try? decoder.nextFrame() { sink &+= Int(frame.payload[frame.payload.count - 1]) }
                            offset += count
                        }
                    }
                }
            })
        }
        if sink == 42 { print("") }  // keeps the measured work observable
        return (decodeRates.median, copyRates.median)
    }

    private static func rate(bytes: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        body()
        return Double(bytes) / seconds(start.duration(to: clock.now))
    }

    // MARK: - Helpers

    /// The medians of the per-round-trip CPU costs, as the table's last columns.
    private static func cpuColumns(_ samples: [EchoSample]) -> String {
        "   " + format(samples.map(\.serverCPUPerRoundTrip).median) + " / " + format(samples.map(\.loadCPUPerRoundTrip).median)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        let whole = Int(hundredths / 100)
        let fraction = Int(abs(hundredths).truncatingRemainder(dividingBy: 100))
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    private static func row(_ name: String, _ value: String, _ ratio: String) -> String {
        pad(name, 46) + String(repeating: " ", count: max(0, 14 - value.count)) + value
            + String(repeating: " ", count: max(0, 13 - ratio.count)) + ratio
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

/// Echoes every message back (the server side of the echo benchmark).
/// Sends every message straight back (the reference server of the wire and latency benchmarks).
final class EchoHandler: WebSocketHandler {
    func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
        connection.sendText(text)
    }

    func webSocketDidReceiveBinary(_ connection: WebSocketConnection, _ bytes: [UInt8]) {
        connection.sendBinary(bytes)
    }

    func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
}

// MARK: - Echo load

extension WireBenchmark {
    /// Why the echo benchmark could not run.
    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    /// The counters one echo load shares with its connections' handlers.
    final class EchoCounters: Sendable {
        let completed = AtomicValue<Int>(0)
        let inFlight = AtomicValue<Int>(0)
        let running = AtomicValue<Bool>(false)
    }

    /// Keeps one message in flight per connection: every echo received is counted and answered at once.
    final class EchoLoadHandler: WebSocketHandler {
        let counters: EchoCounters

        init(counters: EchoCounters) {
            self.counters = counters
        }

        func webSocketDidReceiveText(_ connection: WebSocketConnection, _ text: [UInt8]) {
            counters.completed.add(1, ordering: .relaxed)
            if counters.running.load(ordering: .relaxed) {
                connection.sendText(text)
            } else {
                counters.inFlight.subtract(1, ordering: .relaxed)
            }
        }

        func webSocketDidClose(_ connection: WebSocketConnection, code: UInt16?, reason: String, clean: Bool) {}
    }

    /// A set of open connections to one echo server, driven from one event loop.
    final class EchoLoad: Sendable {
        static let message = Array("{\"type\":\"ping\",\"t\":1234567890}".utf8)
        let connections: [WebSocketConnection]
        let counters: EchoCounters

        private init(connections: [WebSocketConnection], counters: EchoCounters) {
            self.connections = connections
            self.counters = counters
        }

        /// Opens `count` connections, a batch at a time so the server's accept backlog never overflows.
        static func open(url: String, connections count: Int, group: EventLoopGroup) async throws -> EchoLoad {
            let counters = EchoCounters()
            var connections: [WebSocketConnection] = []
            while connections.count < count {
                let batch = min(50, count - connections.count)
                let opened = try await withThrowingTaskGroup(of: WebSocketConnection.self) { tasks in
                    for _ in 0..<batch {
                        tasks.addTask {
                            try await WebSocketClient.connect(url: url, timeout: .seconds(10), on: group.next()) { _ in
                                EchoLoadHandler(counters: counters)
                            }
                        }
                    }
                    var opened: [WebSocketConnection] = []
                    for try await connection in tasks { opened.append(connection) }
                    return opened
                }
                connections += opened
            }
            return EchoLoad(connections: connections, counters: counters)
        }

        /// Starts one message per connection, counts completed round trips during `window`, then lets the
        /// messages in flight finish. Also reports the CPU time `server` and `load` used per round trip over the
        /// window: unlike the rate, that does not depend on how much CPU other work on the machine leaves over.
        func measure(over window: Duration, server: CPUClock, load: CPUClock) async throws -> EchoSample {
            counters.completed.store(0, ordering: .relaxed)
            counters.running.store(true, ordering: .relaxed)
            counters.inFlight.add(connections.count, ordering: .relaxed)
            let clock = ContinuousClock()
            let serverStart = await server.nanoseconds()
            let loadStart = await load.nanoseconds()
            let start = clock.now
            // One hop to the loop for all first messages rather than a wake-up per connection.
            let connections = connections
            if let loop = connections.first?.loop {
                loop.execute { for connection in connections { connection.sendText(Self.message) } }
            }
            try await Task.sleep(for: window)
            let completed = counters.completed.load(ordering: .relaxed)
            let elapsed = start.duration(to: clock.now)
            let serverUsed = await server.nanoseconds() &- serverStart
            let loadUsed = await load.nanoseconds() &- loadStart
            counters.running.store(false, ordering: .relaxed)
            let deadline = clock.now.advanced(by: .seconds(5))
            while counters.inFlight.load(ordering: .relaxed) > 0, clock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            guard counters.inFlight.load(ordering: .relaxed) == 0 else {
                throw SetupError(description: "echo replies went missing (\(counters.inFlight.load(ordering: .relaxed)) still in flight)")
            }
            let trips = Double(max(completed, 1))
            return EchoSample(
                roundTripsPerSecond: Double(completed) / WireBenchmark.seconds(elapsed),
                serverCPUPerRoundTrip: Double(serverUsed) / 1000 / trips,
                loadCPUPerRoundTrip: Double(loadUsed) / 1000 / trips)
        }

        func close() async {
            for connection in connections { connection.close(code: 1000, reason: "") }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// One echo window: the rate and the CPU microseconds the server and the load generator spent per round trip.
    struct EchoSample: Sendable {
        var roundTripsPerSecond: Double
        var serverCPUPerRoundTrip: Double
        var loadCPUPerRoundTrip: Double
    }

    /// Reads the CPU time (user + system, nanoseconds) of one event-loop thread or of another process.
    struct CPUClock: Sendable {
        let nanoseconds: @Sendable () async -> UInt64

        /// The CPU time of `loop`'s thread, read on that thread.
        static func thread(of loop: EventLoop) -> CPUClock {
            CPUClock { (try? await loop.submit { read(CLOCK_THREAD_CPUTIME_ID) }) ?? 0 }
        }

        /// The CPU time of process `pid` (all its threads).
        static func process(_ pid: Int32) -> CPUClock {
            #if os(Linux)
            var clock = clockid_t()
            guard clock_getcpuclockid(pid, &clock) == 0 else { return CPUClock { 0 } }
            return CPUClock { [clock] in read(clock) }
            #else
            return CPUClock { 0 }  // no per-process CPU clock here; the column reads 0
            #endif
        }

        private static func read(_ clock: clockid_t) -> UInt64 {
            var time = timespec()
            clock_gettime(clock, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }
    }

    /// The Python `websockets` echo server (`scripts/interop/peer_server.py`) as a subprocess.
    final class ReferenceEchoServer: Sendable {
        private let process: ChildProcess
        let port: Int
        /// The server's process id (to read its CPU time).
        var processIdentifier: Int32 { process.processIdentifier }

        init() throws {
            let fileManager = FileManager.default
            let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().path
            let roots = [fileManager.currentDirectoryPath, sourceRoot]
            guard let root = roots.first(where: { fileManager.fileExists(atPath: "\($0)/scripts/interop/peer_server.py") }) else {
                throw SetupError(description: "scripts/interop/peer_server.py not found: run from the Tandem package root")
            }
            let python = ProcessInfo.processInfo.environment["TANDEM_PYTHON"] ?? "\(root)/.venv/bin/python"
            guard fileManager.isExecutableFile(atPath: python) else {
                throw SetupError(description: "no Python at \(python): run scripts/test once (it creates .venv with the pinned websockets) or set TANDEM_PYTHON")
            }
            process = try ChildProcess(executable: python, arguments: ["\(root)/scripts/interop/peer_server.py"],
                                       standardInput: .pipe, standardOutput: .pipe)
            var text = ""
            while !text.contains("\n"), let output = process.standardOutput {
                let data = output.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
                process.terminate()
                throw SetupError(description: "the reference server did not start (is websockets installed? run scripts/test)")
            }
            self.port = port
        }

        /// Closes the server's stdin (it exits) and waits for it, killing it if it lingers.
        func stop() {
            try? process.standardInput?.close()
            let deadline = Date().addingTimeInterval(3)
            while process.isRunning, Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }
}
