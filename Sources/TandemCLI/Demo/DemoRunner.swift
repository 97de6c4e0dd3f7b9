import Foundation
import TandemKit
import TandemClient
import TandemProtocol
import TandemServer
import TandemProxy
import TandemWire

/// The core of `tandem demo`: an in-process server on a free loopback port with a temporary data
/// folder, a `FaultProxy` in front of it, and two scripted participants (host and guest) changing
/// the shared page concurrently through the impaired link. Prints what each sees once a second and
/// ends with the verdict line `converged at rev N; acknowledged updates lost: 0`.
///
/// The verdict is checked, not assumed: after the script, both participants drain their outboxes, a
/// third participant joins the server directly, and all three must show the same state at the same
/// rev; every change the server acknowledged must be in that state (its journal entry).
struct DemoRunner: Sendable {
    /// What to run.
    struct Settings: Sendable, Equatable {
        /// How long the participants act.
        var duration: Duration = .seconds(15)
        /// The impaired link between the participants and the server.
        var faults = FaultProxy.Faults(latency: .milliseconds(60), jitter: .milliseconds(40), dropEvery: .seconds(5))
        /// Mean pause between two scripted changes of one participant.
        var stepInterval: Duration = .milliseconds(120)
        /// Seeds the scripts and the link's jitter; nil draws one.
        var seed: UInt64?
        /// How long draining and converging may take after the script.
        var settleTimeout: Duration = .seconds(60)
        /// The heartbeat the server announces: short, so a blackholed (half-open) link is noticed within
        /// two intervals rather than the default twenty seconds.
        var heartbeatMilliseconds = 1_000
    }

    let settings: Settings
    let console: any Console

    /// Runs the demo; returns 0 when everyone converged and nothing acknowledged was lost, else 1.
    func run() async -> Int32 {
        let seed = settings.seed ?? UInt64.random(in: 1...UInt64.max)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-demo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.dataDirectory = directory
        configuration.heartbeatInterval = .milliseconds(settings.heartbeatMilliseconds)
        let server: SyncServer
        let group: EventLoopGroup
        let proxy: FaultProxy
        do {
            server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "demo-\(seed)"], logger: .discarding)
            group = try EventLoopGroup(threads: 1)
        } catch {
            console.err("tandem demo: error: cannot start the server: \(error)")
            return ExitCode.failure
        }
        do {
            proxy = try FaultProxy.start(
                listenPort: 0, targetHost: "127.0.0.1", targetPort: server.port, faults: settings.faults, group: group,
                random: SeededRandom(seed: seed ^ 0x9E37_79B9_7F4A_7C15))
        } catch {
            group.shutdown()
            await server.shutdown()
            console.err("tandem demo: error: cannot start the link: \(error)")
            return ExitCode.failure
        }
        console.out("tandem demo: server \(server.syncURL), link 127.0.0.1:\(proxy.port) with \(settings.faults), seed \(seed)")

        let linkURL = "ws://127.0.0.1:\(proxy.port)\(TandemProtocol.syncPath)"
        let page: SharedState<DemoPage>
        do {
            page = try SharedState(defaultValue: DemoPage())
        } catch {
            await proxy.shutdown()
            group.shutdown()
            await server.shutdown()
            console.err("tandem demo: error: \(error)")
            return ExitCode.failure
        }
        let host = participant("host", role: .host, url: linkURL, server: server, group: group, page: page)
        let guest = participant("guest", role: .guest, url: linkURL, server: server, group: group, page: page)
        let participants = [host, guest]
        let observers = participants.map { $0.observe() }
        for participant in participants { await participant.session.start() }
        // The script's clock starts once both are in the room, so a slow start never eats the run.
        for participant in participants {
            _ = await participant.session.waitUntilConnected(timeout: settings.settleTimeout)
        }

        let started = ContinuousClock.now
        let display = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                if Task.isCancelled { break }
                await console.out(statusLine(elapsed: ContinuousClock.now - started, participants, proxy: proxy))
            }
        }
        await withTaskGroup(of: Void.self) { scripts in
            for (index, participant) in participants.enumerated() {
                scripts.addTask {
                    var random = SeededRandom(seed: seed &+ UInt64(index + 1))
                    var step = 0
                    while ContinuousClock.now - started < settings.duration {
                        let pause = Double(settings.stepInterval.components.attoseconds) / 1e18 + Double(settings.stepInterval.components.seconds)
                        try? await Task.sleep(for: .seconds(pause * Double.random(in: 0.5...1.5, using: &random)))
                        step += 1
                        await participant.act(step: step, using: &random)
                    }
                }
            }
        }

        // The script is over: the link heals so the verdict measures delivery, not the last fault.
        proxy.setFaults(.none)
        let verdict = await settle(participants, server: server, group: group)
        display.cancel()
        await display.value
        console.out(await statusLine(elapsed: ContinuousClock.now - started, participants, proxy: proxy))
        for participant in participants { await participant.session.stop() }
        for observer in observers { await observer.value }
        await proxy.shutdown()
        group.shutdown()
        await server.shutdown()

        let applied = participants.map { $0.current.applied.count }
        let rejected = participants.map { $0.current.rejected.count }
        let reconnects = participants.map { $0.current.reconnects }
        console.out("host and guest made \(applied[0]) and \(applied[1]) changes (\(rejected[0]) and \(rejected[1]) rejected), "
                    + "reconnected \(reconnects[0]) and \(reconnects[1]) times; the link reset \(proxy.statistics.resetConnections) connections")
        guard applied.reduce(0, +) > 0 else {
            console.out("no change was made (the participants never got to act); nothing was verified")
            return ExitCode.failure
        }
        switch verdict {
        case .converged(let rev, let lost) where lost == 0:
            console.out("converged at rev \(rev); acknowledged updates lost: 0")
            return ExitCode.success
        case .converged(let rev, let lost):
            console.out("converged at rev \(rev); acknowledged updates lost: \(lost)")
            return ExitCode.failure
        case .diverged(let description, let lost):
            console.out("did not converge (\(description)); acknowledged updates lost: \(lost)")
            return ExitCode.failure
        }
    }

    private enum Verdict {
        case converged(rev: Int64, lost: Int)
        case diverged(String, lost: Int)
    }

    private func participant(_ name: String, role: Role, url: String, server: SyncServer, group: EventLoopGroup,
                             page: SharedState<DemoPage>) -> DemoParticipant {
        let tokens = server.tokens
        let claims = TokenClaims(sub: name, room: "demo", role: role, exp: tokens.currentTime + 86_400, name: name.capitalized)
        // A link reset every few seconds never lets a connection count as stable, so the default backoff
        // (capped at 30 s) would soon leave a participant waiting longer than the demo lasts.
        let reconnect = ReconnectPolicy(backoff: Backoff(base: .milliseconds(100), cap: .seconds(2)), stableAfter: .seconds(2))
        let session = SyncSession(
            url: url, clientID: "\(name)-demo", tokenProvider: { tokens.mint(claims) },
            presence: .object(["name": .string(name.capitalized)]),
            configuration: SyncSessionConfiguration(reconnect: reconnect), transport: WireTransport(group: group))
        return DemoParticipant(name: name, session: session, page: page)
    }

    /// Drains both outboxes, lets a third participant join the server directly, and waits until all
    /// three show the same state at the same rev.
    private func settle(_ participants: [DemoParticipant], server: SyncServer, group: EventLoopGroup) async -> Verdict {
        let deadline = ContinuousClock.now + settings.settleTimeout
        for participant in participants {
            _ = await participant.session.drain(timeout: max(.zero, deadline - ContinuousClock.now))
        }
        let tokens = server.tokens
        let claims = TokenClaims(sub: "verifier", room: "demo", role: .viewer, exp: tokens.currentTime + 3_600)
        let verifier = SyncSession(url: server.syncURL, clientID: "verifier-demo", tokenProvider: { tokens.mint(claims) }, transport: WireTransport(group: group))
        await verifier.start()
        var snapshots: [SyncSnapshot] = []
        repeat {
            snapshots = [await verifier.snapshot]
            for participant in participants { snapshots.append(await participant.session.snapshot) }
            let first = snapshots[0]
            let connected = await verifier.state == .connected
            if connected, snapshots.allSatisfy({ $0 == first && $0.pending == 0 }) { break }
            try? await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        await verifier.stop()
        let server = snapshots[0]
        let lost = participants.reduce(0) { $0 + $1.lostUpdates(in: server.state).count }
        if snapshots.allSatisfy({ $0 == server && $0.pending == 0 }) {
            return .converged(rev: server.rev, lost: lost)
        }
        let revs = zip(["server", "host", "guest"], snapshots).map { "\($0) rev \($1.rev), \($1.pending) pending" }
        return .diverged(revs.joined(separator: "; "), lost: lost)
    }

    private func statusLine(elapsed: Duration, _ participants: [DemoParticipant], proxy: FaultProxy) async -> String {
        var parts: [String] = []
        for participant in participants {
            let snapshot = await participant.session.snapshot
            let figures = participant.current
            let rtt = figures.roundTripMilliseconds.map { "\(Int($0.rounded())) ms" } ?? "–"
            parts.append("\(participant.name) rev \(snapshot.rev) pending \(snapshot.pending) rtt \(rtt) reconnects \(figures.reconnects) [\(figures.status)]")
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return String(format: "%6.1f s  ", seconds) + parts.joined(separator: " | ")
    }
}
