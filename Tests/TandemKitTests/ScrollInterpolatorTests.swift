import Foundation
import Testing
import TandemKit
import TandemProtocol

/// The follower's smoothing of remote scroll offsets: tweened only between received values, resting
/// exactly on the last, a delay that follows the gaps between arrivals, snaps for jumps and tab changes.
@Suite struct ScrollInterpolatorTests {
    private static func ns(_ milliseconds: Double) -> Int64 { Int64((milliseconds * 1_000_000).rounded()) }

    @Test func theSharedCasesShowWhatTheySay() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/scroll-interpolation.json")
        let cases = try #require(try JSONValue.parse(String(contentsOf: file, encoding: .utf8))["cases"]?.arrayValue)
        #expect(cases.count >= 7)
        for vector in cases {
            let name = vector["name"]?.stringValue ?? "?"
            var configuration = ScrollInterpolator.Configuration()
            if let maximum = vector["maximumDelayMs"]?.doubleValue { configuration.maximumDelay = Self.ns(maximum) }
            var interpolator = ScrollInterpolator(configuration: configuration)
            for step in vector["steps"]?.arrayValue ?? [] {
                if let y = step["receive"]?.doubleValue, let at = step["at"]?.doubleValue {
                    interpolator.receive(ContentOffset(x: 0, y: y), at: Self.ns(at))
                } else if step["reset"] != nil {
                    interpolator.reset()
                } else if let at = step["frame"]?.doubleValue, let y = step["y"]?.doubleValue {
                    let shown = interpolator.frame(at: Self.ns(at))
                    let frame = try #require(shown, "\(name)")
                    #expect(abs(frame.offset.y - y) < 0.01, "\(name): at \(at) ms shows \(frame.offset.y), not \(y)")
                    #expect(frame.isResting == step["resting"]?.boolValue, "\(name): at \(at) ms")
                }
            }
        }
    }

    /// A link's jitter (ms) and how many times less judder than the raw stream the smoothed view must have.
    @Test(arguments: [(6, 8.0), (30, 2.0)])
    func aJitteryStreamIsShownWithoutOvershootOrGoingBackAndRestsOnTheLastValue(jitter: Int64, factor: Double) {
        var random = SeededRandom(seed: 7)
        var interpolator = ScrollInterpolator()
        // A fling: offsets every 16.7 ms from the leader, arriving with up to `jitter` ms of in-order jitter.
        var arrivals: [(at: Int64, y: Double)] = []
        var lastArrival: Int64 = 0
        for index in 0..<120 {
            let sent = Int64(Double(index) * 16_666_667)
            lastArrival = max(lastArrival, sent + Int64.random(in: 0...(jitter * 1_000_000), using: &random))
            arrivals.append((lastArrival, Double(index) * 12))
        }
        var shown: [Double] = [], raw: [Double] = []
        var next = 0
        var now: Int64 = 0
        while now < lastArrival + 400_000_000 {
            while next < arrivals.count, arrivals[next].at <= now {
                interpolator.receive(ContentOffset(x: 0, y: arrivals[next].y), at: arrivals[next].at)
                next += 1
            }
            if let frame = interpolator.frame(at: now) { shown.append(frame.offset.y) }
            if next > 0 { raw.append(arrivals[next - 1].y) }
            now += 8_333_333
        }
        let top: Double = 119 * 12
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 <= $1 }, "a rising stream is shown rising")
        #expect(shown.allSatisfy { $0 >= 0 && $0 <= top }, "never past a received value")
        #expect(shown.last == top, "it rests exactly on the last value")
        let last = interpolator.frame(at: now)
        #expect(last?.isResting == true)
        // Smoother than showing each offset as it lands: the frame-to-frame change of velocity (what the
        // eye sees as judder) is a fraction of the raw stream's.
        func judder(_ path: [Double]) -> Double {
            let velocity = zip(path, path.dropFirst()).map { $1 - $0 }
            return zip(velocity, velocity.dropFirst()).map { abs($1 - $0) }.reduce(0, +)
        }
        #expect(judder(shown) < judder(raw) / factor, "judder \(judder(shown)) against \(judder(raw)) raw")
    }

    @Test func aGrowingDelayHoldsTheViewStillInsteadOfMovingItBack() {
        var interpolator = ScrollInterpolator()
        var shown: [Double] = []
        var y = 0.0
        // Arrivals (ms), a frame every 2 ms: the gap of 16 ms after two of 200 ms makes the delay grow by
        // more than a frame's time while the view is between two offsets.
        let arrivals: [Int64] = [0, 200, 400, 416]
        var next = 0
        for now in stride(from: Int64(0), through: 1_000, by: 2) {
            while next < arrivals.count, arrivals[next] <= now {
                y += 10
                interpolator.receive(ContentOffset(x: 0, y: y), at: arrivals[next] * 1_000_000)
                next += 1
            }
            if let frame = interpolator.frame(at: now * 1_000_000) { shown.append(frame.offset.y) }
        }
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 <= $1 }, "\(shown)")
        #expect(shown.last == y)
    }

    @Test func theDelayFollowsTheGapsAndTheirJitter() {
        var steady = ScrollInterpolator(), jittery = ScrollInterpolator()
        for index in 0..<50 {
            steady.receive(ContentOffset(x: 0, y: Double(index)), at: Int64(index) * 16_000_000)
            jittery.receive(ContentOffset(x: 0, y: Double(index)), at: Int64(index) * 16_000_000 + (index % 2 == 0 ? 0 : 12_000_000))
        }
        #expect(steady.delay > 15_000_000 && steady.delay < 18_000_000, "about one gap: \(steady.delay)")
        #expect(jittery.delay > steady.delay + 10_000_000, "more under jitter: \(jittery.delay)")
        #expect(ScrollInterpolator().delay == 0, "nothing received, nothing to wait for")
    }

    @Test func aSnapDistanceAppliesOnEitherAxis() {
        var interpolator = ScrollInterpolator(configuration: .init(snapDistance: 300))
        interpolator.receive(ContentOffset(x: 0, y: 0), at: 0)
        interpolator.receive(ContentOffset(x: 0, y: 10), at: 16_000_000)
        interpolator.receive(ContentOffset(x: 400, y: 10), at: 32_000_000)
        let frame = interpolator.frame(at: 32_000_000)
        #expect(frame?.offset == ContentOffset(x: 400, y: 10))
    }
}
