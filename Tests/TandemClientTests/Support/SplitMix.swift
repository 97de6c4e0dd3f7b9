import TandemKit

/// The kit's seeded generator under the name the randomized client tests use, with their shorthands.
typealias SplitMix = SeededRandom

extension SeededRandom {
    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    mutating func int(_ range: Range<Int>) -> Int {
        Int.random(in: range, using: &self)
    }
}
