import TandemKit

/// `tandem bench container`: the cost of `Container.resolve` for singleton and transient services,
/// against calling the same factory closure directly in the same run.
enum ContainerBenchmark {
    /// Calls per timed chunk: long enough that reading the clock is negligible, short enough that
    /// a burst of load on a shared machine hits only a few chunks.
    static let chunk = 5_000
    /// Chunks per run; the three measurements alternate chunk by chunk so they see the same load.
    static let chunksPerRun = 40
    /// A singleton resolve (lock, lookup, cast) may cost at most this many direct factory calls.
    /// Targets are ratios so that a loaded machine slows both sides alike.
    static let singletonTargetRatio = 10.0
    /// A transient resolve (lookup, resolver, boxing, factory call) may cost at most this many.
    static let transientTargetRatio = 25.0

    static let suite = BenchSuite(
        name: "container",
        summary: "Container.resolve (singleton, transient) vs. calling the factory directly"
    ) { runs, console in
        await measure(runs: runs, console: console)
    }

    private protocol Service: Sendable {
        var id: Int { get }
    }

    private final class Implementation: Service {
        let id: Int
        init(id: Int) { self.id = id }
    }

    private struct Transient: Sendable {
        let service: any Service
    }

    static func measure(runs: Int, console: BenchConsole) async -> Bool {
        let make: @Sendable () -> any Service = { Implementation(id: 7) }
        let container = Container()
        container.register((any Service).self) { _ in make() }
        container.register(Transient.self, scope: .transient) { _ in Transient(service: make()) }

        var reference: [Double] = []
        var singleton: [Double] = []
        var transient: [Double] = []
        var sink = 0
        do {
            for _ in 0..<(runs * chunksPerRun) {
                reference.append(time { sink &+= Transient(service: make()).service.id })
                singleton.append(try time { sink &+= try container.resolve((any Service).self).id })
                transient.append(try time { sink &+= try container.resolve(Transient.self).service.id })
            }
        } catch {
            console.err("tandem bench container: error: \(error)")
            return false
        }
        guard sink != 0 else { return false }  // keeps the measured work observable

        let referenceNs = reference.median
        let singletonNs = singleton.median
        let transientNs = transient.median
        console.out("runs: \(runs) × \(chunksPerRun) alternating chunks of \(chunk) calls (median over chunks)")
        console.out(row("measurement", "ns/op", "× reference"))
        console.out(row("factory called directly (reference)", format(referenceNs), "1.00"))
        console.out(row("resolve singleton", format(singletonNs), format(singletonNs / referenceNs)))
        console.out(row("resolve transient", format(transientNs), format(transientNs / referenceNs)))
        var status = true
        for (name, ratio, target) in [("singleton", singletonNs / referenceNs, singletonTargetRatio), ("transient", transientNs / referenceNs, transientTargetRatio)] {
            if ratio > target {
                console.out("MISSED: \(name) resolve costs \(format(ratio))× the direct call (target ≤ \(format(target))×)")
                status = false
            } else {
                console.out("ok: \(name) resolve \(format(ratio))× (target ≤ \(format(target))×)")
            }
        }
        return status
    }

    /// Nanoseconds per call of `body`, over one chunk of calls.
    private static func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<chunk { try body() }
        let elapsed = start.duration(to: clock.now)
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return nanoseconds / Double(chunk)
    }

    private static func format(_ value: Double) -> String {
        let hundredths = (value * 100).rounded()
        let whole = Int(hundredths / 100)
        let fraction = Int(abs(hundredths).truncatingRemainder(dividingBy: 100))
        return "\(whole).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    private static func row(_ name: String, _ value: String, _ ratio: String) -> String {
        name.rightPadded(to: 38) + value.leftPadded(to: 10) + ratio.leftPadded(to: 13)
    }
}

private extension String {
    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
