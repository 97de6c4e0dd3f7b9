import TandemKit

/// A leader's scroll as a 60 Hz trace: drags (a finger moving at a slowly changing speed), flings (a
/// release that decelerates) and pauses, from a seed, so every run and every system replays the same
/// motion. Each sample is a new offset (a pause emits nothing); offsets are unique within a trace, so a
/// follower's shown offset names the sample it came from.
struct ScrollTrace: Sendable {
    /// One change: when it happens (from the trace's start) and the offset it sets.
    struct Sample: Sendable, Equatable {
        var at: Duration
        var y: Double
    }

    let samples: [Sample]

    /// A trace of the given samples (tests).
    init(samples: [Sample]) {
        self.samples = samples
    }

    /// The frame interval of the trace (60 Hz).
    static let frame = Duration.nanoseconds(16_666_667)

    /// A trace of about `length` from `seed`.
    init(seed: UInt64, length: Duration = .seconds(6)) {
        var random = SeededRandom(seed: seed)
        var samples: [Sample] = []
        var frameIndex = 0
        // From the middle of a long page, so that motion either way moves the view.
        var y = 6_000.0
        let frames = Int(length / Self.frame)
        var position = 0.0
        func emit(_ value: Double) {
            // A view held at the top does not move: nothing to send.
            let rounded = (value * 100).rounded() / 100
            guard rounded != position else { return }
            position = rounded
            // A sub-point tag keeps every offset unique (a return to an earlier position stays distinguishable).
            samples.append(Sample(at: Self.frame * frameIndex, y: rounded + Double(samples.count + 1) * 1e-6))
        }
        // Drag, fling, pause, again: every kind of motion in every trace, each with its own random measure.
        var segment = 0
        while frameIndex < frames {
            defer { segment += 1 }
            switch segment % 3 {
            case 0: // a drag: 0.3–1 s at a speed drifting around a random value
                var speed = Double.random(in: -900...900, using: &random)
                for _ in 0..<Int.random(in: 18...60, using: &random) where frameIndex < frames {
                    speed += Double.random(in: -60...60, using: &random)
                    y = max(0, y + speed / 60)
                    emit(y)
                    frameIndex += 1
                }
            case 1: // a fling: a fast release decelerating until it stops
                var speed = Double.random(in: 1_500...4_000, using: &random) * (Bool.random(using: &random) ? 1 : -1)
                while abs(speed) > 20, frameIndex < frames {
                    y = max(0, y + speed / 60)
                    speed *= 0.95
                    emit(y)
                    frameIndex += 1
                }
            default: // a pause: 0.1–0.6 s without a change
                frameIndex += Int.random(in: 6...36, using: &random)
            }
        }
        self.samples = samples
    }
}
