import Foundation
import TandemProtocol

/// A micro-benchmark of the message hot path: parse + serialize a typical patch message with
/// Tandem's JSON code and, as the reference, with Foundation's `JSONSerialization`, in the
/// same run. Not a test; run it from `tandem bench` or a release build.
///
/// Times are the calling thread's CPU time, so other processes competing for the cores do
/// not inflate them (wall-clock time on a shared machine varies several-fold between runs).
enum JSONBenchmark {
    /// A typical client `patch` message (about 200 bytes): a scroll offset, a tab change, a
    /// mark set and a mark removed.
    static let samplePatchMessage: [UInt8] = Array(
        #"{"type":"patch","seq":1842,"ops":[{"op":"set","path":"/contentOffset","value":{"x":0,"y":1287.5}},{"op":"set","path":"/tabIndex","value":2},{"op":"set","path":"/marks/video_playing","value":true},{"op":"remove","path":"/marks/coupon"}]}"#.utf8)

    /// Timings of one benchmark run, in nanoseconds per message.
    struct Report: Sendable, CustomStringConvertible {
        /// Messages processed by each contender.
        var iterations: Int
        /// Size of the sample message in bytes.
        var messageBytes: Int
        /// `JSONValue.parse` + `serialize(into:)`.
        var tandemNanoseconds: Double
        /// `ClientMessage.decode` + `ServerMessage.patch` encode (the server's per-patch work).
        var tandemMessageNanoseconds: Double
        /// `JSONSerialization.jsonObject` + `JSONSerialization.data`.
        var foundationNanoseconds: Double

        /// How many times faster Tandem's parse + serialize is than Foundation's.
        var speedup: Double { foundationNanoseconds / tandemNanoseconds }

        /// A short multi-line summary.
        var description: String {
            func format(_ value: Double) -> String { String(format: "%.0f ns", value) }
            return """
                parse+serialize of a \(messageBytes)-byte patch message, \(iterations) iterations:
                  Tandem JSONValue                 \(format(tandemNanoseconds))/message
                  Tandem ClientMessage→patch event \(format(tandemMessageNanoseconds))/message
                  Foundation JSONSerialization     \(format(foundationNanoseconds))/message
                  speedup (Foundation / Tandem)    \(String(format: "%.1f", speedup))x
                """
        }
    }

    /// Runs each contender `iterations` times on `message` after a short warm-up.
    static func run(iterations: Int = 100_000, message: [UInt8] = samplePatchMessage) -> Report {
        var sink = 0
        var output: [UInt8] = []
        output.reserveCapacity(message.count * 2)

        func timeTandem(_ count: Int) -> Duration {
            measureCPU {
                for _ in 0..<count {
                    output.removeAll(keepingCapacity: true)
                    guard let value = try? JSONValue.parse(message) else { continue }
                    value.serialize(into: &output)
                    sink &+= output.count
                }
            }
        }
        func timeMessages(_ count: Int) -> Duration {
            measureCPU {
                for _ in 0..<count {
                    output.removeAll(keepingCapacity: true)
                    guard case .patch(let seq, let ops, _)? = try? ClientMessage.decode(message) else { continue }
                    ServerMessage.patch(PatchEvent(rev: 99, user: "u", client: "c", seq: seq, ops: ops)).encode(into: &output)
                    sink &+= output.count
                }
            }
        }
        let data = Data(message)
        func timeFoundation(_ count: Int) -> Duration {
            measureCPU {
                for _ in 0..<count {
                    guard let object = try? JSONSerialization.jsonObject(with: data),
                        let bytes = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                    else { continue }
                    sink &+= bytes.count
                }
            }
        }
        let warmUp = max(iterations / 10, 1)
        _ = (timeTandem(warmUp), timeMessages(warmUp), timeFoundation(warmUp))
        let tandem = timeTandem(iterations)
        let messages = timeMessages(iterations)
        let foundation = timeFoundation(iterations)
        precondition(sink > 0, "benchmark produced no output")

        func perMessage(_ duration: Duration) -> Double {
            let (seconds, attoseconds) = duration.components
            return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations)
        }
        return Report(
            iterations: iterations, messageBytes: message.count, tandemNanoseconds: perMessage(tandem),
            tandemMessageNanoseconds: perMessage(messages), foundationNanoseconds: perMessage(foundation))
    }

    /// The CPU time the calling thread spends in `work`.
    static func measureCPU(_ work: () -> Void) -> Duration {
        func now() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
        let start = now()
        work()
        return now() - start
    }
}
