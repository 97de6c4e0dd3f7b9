import Foundation
import TandemClient
import TandemProtocol
import TandemProxy
import TandemServer
import TandemSynchronization
import TandemWire

/// `tandem bench weak-link`: a leader scrolls (a seeded 60 Hz trace of drags, flings and pauses) and a
/// follower shows the leader's position, each behind its own impaired link, on three profiles. Measured
/// in one run, on the same links and trace: Tandem (a server, two `SyncSession`s), the article's naive
/// relay (the whole page state as one WebSocket message per change, relayed as it is) and the links
/// alone (the leader's messages cross both links with no server). See `WeakLinkFigures` for what is measured.
enum WeakLinkBenchmark {
    static let suite = BenchSuite(
        name: "weak-link",
        summary: "a follower's staleness (p50/p99/max), settle and link bytes on good, weak Wi-Fi and congested links: Tandem vs. a naive relay vs. the link floor"
    ) { runs, console in
        let seconds = ProcessInfo.processInfo.environment["TANDEM_BENCH_TRACE_SECONDS"].flatMap(Int.init) ?? 6
        return await measure(runs: runs, console: console, trace: ScrollTrace(seed: 7, length: .seconds(max(1, seconds))))
    }

    /// The three systems a run compares.
    enum System: String, CaseIterable, Sendable {
        case tandem = "Tandem"
        case naive = "naive relay"
        case floor = "link floor"
    }

    /// One system's run on one profile.
    struct Result: Sendable {
        var figures: WeakLinkFigures
        /// Bytes the follower's link carried, both directions.
        var followerLinkBytes: Int
        /// Offsets the follower received.
        var messages: Int
        /// Connections the two sessions opened again after their first (Tandem only; 0 for the others),
        /// and the times their heartbeat found the link weak (late pongs) without dropping it.
        var reconnects = 0
        var degraded = 0
    }

    static func measure(runs: Int, console: BenchConsole, profiles: [WeakLinkProfile] = WeakLinkProfile.all,
                        trace: ScrollTrace = ScrollTrace(seed: 7)) async -> Bool {
        console.out("trace: \(trace.samples.count) offsets over \(String(format: "%.1f", WeakLinkFigures.seconds(trace.samples.last?.at ?? .zero))) s (seed 7); each participant behind its own link; medians of \(runs) run(s)")
        console.out(row("profile", "system", "p50 ms", "p99 ms", "max ms", "settle ms", "bunched", "msgs", "link bytes",
                        "smooth p50", "smooth p99", "judder", "smoothed", "leader's", "reconnects", "weak"))
        do {
            for profile in profiles {
                for system in System.allCases {
                    var results: [Result] = []
                    for _ in 0..<max(1, runs) { results.append(try await run(system, profile: profile, trace: trace)) }
                    let result = results.median { $0.figures.p99 }
                    let figures = result.figures
                    console.out(row(profile.name, system.rawValue, ms(figures.p50), ms(figures.p99), ms(figures.max),
                                    figures.settle.map(ms) ?? "never", "\(figures.bunchedFrames)", "\(result.messages)", "\(result.followerLinkBytes)",
                                    ms(figures.smoothedP50), ms(figures.smoothedP99), String(format: "%.0f", figures.judder.raw),
                                    String(format: "%.0f", figures.judder.smoothed), String(format: "%.0f", figures.judder.leader),
                                    "\(result.reconnects)", "\(result.degraded)"))
                    if figures.backwards > 0 { console.err("\(system.rawValue) on \(profile.name): \(figures.backwards) frames went backwards") }
                }
            }
            return true
        } catch {
            console.err("tandem bench weak-link: error: \(error)")
            return false
        }
    }

    /// One run of `system` on `profile`; `heartbeat` is the Tandem server's heartbeat interval.
    static func run(_ system: System, profile: WeakLinkProfile, trace: ScrollTrace,
                    heartbeat: Duration = ServerConfiguration().heartbeatInterval) async throws -> Result {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let clock = ContinuousClock(), origin = ContinuousClock.now
        let view = FollowerView { WeakLinkFigures.nanoseconds(clock.now - origin) }
        switch system {
        case .tandem:
            var configuration = ServerConfiguration()
            configuration.port = 0
            configuration.inMemoryStorage = true
            configuration.heartbeatInterval = heartbeat
            let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "bench"], logger: .discarding)
            let leaderLink = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: server.port, faults: profile.faults, group: group)
            let followerLink = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: server.port, faults: profile.faults, group: group)
            func session(_ user: String, _ link: FaultProxy) -> SyncSession {
                let token = server.tokens.mint(TokenClaims(sub: user, room: "weak-link", role: .host, exp: server.tokens.currentTime + 3_600))
                return SyncSession(url: "ws://127.0.0.1:\(link.port)\(TandemProtocol.syncPath)", clientID: "\(user)-1",
                                   tokenProvider: { token }, transport: WireTransport(group: group))
            }
            let leader = session("leader", leaderLink), follower = session("follower", followerLink)
            // Every welcome after a session's first is a reconnect; every late-pong warning a weak link ridden out.
            let connections = Locked((welcomes: 0, degraded: 0))
            // The streams are taken before the sessions start, so no welcome goes uncounted.
            let watchers = [leader.events, follower.events].map { events in
                Task {
                    for await event in events {
                        switch event {
                        case .synchronized: connections.withLock { $0.welcomes += 1 }
                        case .linkDegraded: connections.withLock { $0.degraded += 1 }
                        default: break
                        }
                    }
                }
            }
            await leader.start()
            await follower.start()
            guard await leader.waitUntilConnected(timeout: .seconds(30)), await follower.waitUntilConnected(timeout: .seconds(30)) else {
                throw LatencyBenchmark.BenchError("the sessions did not connect")
            }
            let reader = Task {
                for await snapshot in await follower.snapshots() {
                    if case .number(let y)? = snapshot.state["contentOffset"]?["y"] { view.receive(y) }
                }
            }
            let before = followerLink.statistics.forwardedBytes
            let frames = try await play(trace, view: view) { y in
                try await leader.apply([.set(JSONPointer(tokens: ["contentOffset"]), ["x": 0, "y": .number(y)])])
            }
            let bytes = followerLink.statistics.forwardedBytes - before
            reader.cancel()
            for watcher in watchers { watcher.cancel() }
            let counted = connections.withLock { $0 }
            await leader.stop()
            await follower.stop()
            await leaderLink.shutdown()
            await followerLink.shutdown()
            await server.shutdown()
            return Result(figures: WeakLinkFigures(trace: trace, frames: frames), followerLinkBytes: bytes, messages: view.messages,
                          reconnects: max(0, counted.welcomes - 2), degraded: counted.degraded)
        case .naive, .floor:
            // The follower's end: a client of the relay, or (the floor) a server the leader's link leads to.
            let relay = system == .naive ? try NaiveRelay(group: group) : nil
            var sinkConfiguration = WebSocketServerConfiguration()
            sinkConfiguration.port = 0
            sinkConfiguration.idleTimeout = nil
            let sink = system == .floor ? try WebSocketServer.start(configuration: sinkConfiguration, group: group, routes: { _ in nil }) { _, _ in
                PageStateReader(view: view)
            } : nil
            let followerLink = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: relay?.port ?? sink?.port ?? 0,
                                                    faults: profile.faults, group: group)
            let leaderLink = try FaultProxy.start(listenPort: 0, targetHost: "127.0.0.1", targetPort: relay?.port ?? followerLink.port,
                                                  faults: profile.faults, group: group)
            let follower = relay == nil ? nil : try await WebSocketClient.connect(url: "ws://127.0.0.1:\(followerLink.port)\(TandemProtocol.syncPath)", on: group.next(), handler: { _ in
                PageStateReader(view: view)
            })
            let leader = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(leaderLink.port)\(TandemProtocol.syncPath)", on: group.next())
            let before = followerLink.statistics.forwardedBytes
            let frames = try await play(trace, view: view) { y in try await leader.send(text: PageStateReader.pageState(y: y)) }
            let bytes = followerLink.statistics.forwardedBytes - before
            await leader.close()
            follower?.close(code: 1000, reason: "")
            await leaderLink.shutdown()
            await followerLink.shutdown()
            relay?.shutdown()
            sink?.shutdown(timeout: .seconds(2))
            return Result(figures: WeakLinkFigures(trace: trace, frames: frames), followerLinkBytes: bytes, messages: view.messages)
        }
    }

    /// Plays `trace` through `send` in real time while sampling `view` once per frame, until the follower
    /// shows the last offset (or 30 s after the trace ended). Returns the frames.
    static func play(_ trace: ScrollTrace, view: FollowerView, send: @escaping @Sendable (Double) async throws -> Void) async throws -> [WeakLinkFigures.Frame] {
        let clock = ContinuousClock()
        let start = clock.now
        let frames = Locked<[WeakLinkFigures.Frame]>([])
        let last = trace.samples.last?.y
        let sampler = Task {
            var next = start
            while !Task.isCancelled {
                let reading = view.frame()
                frames.withLock { $0.append(.init(at: WeakLinkFigures.seconds(clock.now - start), shown: reading.shown, arrived: reading.arrived, smoothed: reading.smoothed)) }
                let smoothedRests = reading.smoothed.map { $0.from == last && $0.to == last } ?? true
                if reading.shown == last, smoothedRests, let lastAt = trace.samples.last?.at, clock.now - start >= lastAt { break }
                if clock.now - start > (trace.samples.last?.at ?? .zero) + .seconds(30) { break }
                next = next.advanced(by: ScrollTrace.frame)
                try? await clock.sleep(until: next)
            }
        }
        for sample in trace.samples {
            try await clock.sleep(until: start.advanced(by: sample.at))
            try await send(sample.y)
        }
        await sampler.value
        return frames.withLock { $0 }
    }

    private static func ms(_ seconds: Double) -> String { String(format: "%.0f", seconds * 1000) }

    private static func row(_ columns: String...) -> String {
        columns.enumerated().map { index, text in
            index < 2 ? text.padding(toLength: 12, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 10 - text.count)) + text
        }.joined(separator: " ")
    }
}
