/// A declared mapping from an SDK's error codes to an app's domain errors.
///
/// Rules are checked in declaration order and the first whose codes contain the failure's code
/// wins; unmatched codes go to the fallback, so every SDK failure maps to some domain error.
/// `overlaps` lists rules that shadow each other, so a test can keep the table unambiguous.
public struct ErrorTable<DomainError: Error & Sendable>: Sendable {
    /// One row of the table: a code range and how to build the domain error.
    public struct Rule: Sendable {
        /// The SDK codes this rule covers.
        public var codes: ClosedRange<Int>
        /// Builds the domain error (it may use the SDK's description).
        public var make: @Sendable (SDKFailure) -> DomainError

        /// A rule for a range of codes.
        public init(codes: ClosedRange<Int>, make: @escaping @Sendable (SDKFailure) -> DomainError) {
            self.codes = codes
            self.make = make
        }

        /// A rule for one code whose domain error depends on the failure.
        public static func code(_ code: Int, _ make: @escaping @Sendable (SDKFailure) -> DomainError) -> Rule {
            Rule(codes: code...code, make: make)
        }

        /// A rule for one code that always maps to `error`.
        public static func code(_ code: Int, _ error: DomainError) -> Rule {
            Rule(codes: code...code) { _ in error }
        }

        /// A rule for a range of codes.
        public static func codes(_ codes: ClosedRange<Int>, _ make: @escaping @Sendable (SDKFailure) -> DomainError) -> Rule {
            Rule(codes: codes, make: make)
        }
    }

    /// Two rules whose code ranges intersect: the later one is (partly) unreachable.
    public struct Overlap: Sendable, Hashable {
        /// Index of the earlier rule, which wins.
        public var winner: Int
        /// Index of the later, shadowed rule.
        public var shadowed: Int
        /// The codes both cover.
        public var codes: ClosedRange<Int>

        /// Creates an overlap record.
        public init(winner: Int, shadowed: Int, codes: ClosedRange<Int>) {
            self.winner = winner
            self.shadowed = shadowed
            self.codes = codes
        }
    }

    /// The rules, in matching order.
    public let rules: [Rule]
    private let fallback: @Sendable (SDKFailure) -> DomainError

    /// Creates a table from `rules` (first match wins) and a fallback for unlisted codes.
    public init(_ rules: [Rule], otherwise fallback: @escaping @Sendable (SDKFailure) -> DomainError) {
        self.rules = rules
        self.fallback = fallback
    }

    /// The domain error for `failure`.
    public func map(_ failure: SDKFailure) -> DomainError {
        for rule in rules where rule.codes.contains(failure.code) {
            return rule.make(failure)
        }
        return fallback(failure)
    }

    /// The domain error for an SDK's `(code, description)` pair.
    public func map(code: Int, description: String?) -> DomainError {
        map(SDKFailure(code: code, message: description))
    }

    /// Every pair of rules whose code ranges intersect, earlier rule first.
    public var overlaps: [Overlap] {
        var found: [Overlap] = []
        for (first, earlier) in rules.enumerated() {
            for (second, later) in rules.enumerated() where second > first && earlier.codes.overlaps(later.codes) {
                let shared = max(earlier.codes.lowerBound, later.codes.lowerBound)...min(earlier.codes.upperBound, later.codes.upperBound)
                found.append(Overlap(winner: first, shadowed: second, codes: shared))
            }
        }
        return found
    }
}
