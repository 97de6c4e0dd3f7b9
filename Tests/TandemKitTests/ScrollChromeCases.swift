import TandemKit

/// The shared table of scroll-chrome cases. docs/scroll-chrome-cases.json holds the same table
/// for non-Swift front ends; `ScrollChromeCaseTableTests` asserts that the two agree.
struct ScrollChromeCaseTable: Codable, Equatable {
    var description: String
    var cases: [ScrollChromeCase]
}

/// One sequence of offsets fed to `next(offset:previous:)`; each step's `previous` is the state
/// the step before produced (none for the first step).
struct ScrollChromeCase: Codable, Equatable {
    struct Configuration: Codable, Equatable {
        var fadeStart: Double
        var fadeEnd: Double
        var hysteresis: Double
    }

    struct Step: Codable, Equatable {
        var offset: Double
        var expected: NavigationBarState
    }

    var name: String
    var configuration: Configuration
    var steps: [Step]
}

extension ScrollChromeCase {
    private static func state(_ alpha: Double, _ onBar: Bool, shadow: Bool = false) -> NavigationBarState {
        NavigationBarState(
            backgroundAlpha: alpha,
            titleColor: onBar ? .primary : .inverted,
            statusBarStyle: onBar ? .darkContent : .lightContent,
            castsShadow: shadow
        )
    }

    private static func single(_ name: String, start: Double = 0, end: Double = 200, _ offset: Double, _ expected: NavigationBarState) -> ScrollChromeCase {
        ScrollChromeCase(name: name, configuration: .init(fadeStart: start, fadeEnd: end, hysteresis: 0), steps: [.init(offset: offset, expected: expected)])
    }

    private static func sequence(_ name: String, hysteresis: Double, _ steps: [(Double, NavigationBarState)]) -> ScrollChromeCase {
        ScrollChromeCase(
            name: name,
            configuration: .init(fadeStart: 0, fadeEnd: 200, hysteresis: hysteresis),
            steps: steps.map { Step(offset: $0.0, expected: $0.1) }
        )
    }

    /// Fade 0…200 (midpoint 100) unless a case says otherwise.
    static let table = ScrollChromeCaseTable(
        description: """
        Tandem scroll chrome: each case feeds its offsets (scrolled distance in points, 0 at rest, \
        negative while rubber-banding) in order to next(offset, previous) with the given \
        configuration; the first step has no previous state. Alpha = clamp((offset - fadeStart) / \
        (fadeEnd - fadeStart), 0, 1). Title/status switch to primary/darkContent when offset >= \
        midpoint + hysteresis and back to inverted/lightContent when offset < midpoint - hysteresis; \
        the shadow appears at offset >= fadeEnd and disappears when offset < fadeEnd - hysteresis. \
        Without a previous state the thresholds are the midpoint and fadeEnd exactly. Compare alpha \
        with a tolerance of 1e-9.
        """,
        cases: [
            single("at rest", 0, state(0, false)),
            single("rubber-band pull", -80, state(0, false)),
            single("huge negative offset", -1e300, state(0, false)),
            single("a quarter through the fade", 50, state(0.25, false)),
            single("just below the midpoint", 99.5, state(0.4975, false)),
            single("at the midpoint", 100, state(0.5, true)),
            single("three quarters", 150, state(0.75, true)),
            single("at the fade end", 200, state(1, true, shadow: true)),
            single("past the fade end", 640, state(1, true, shadow: true)),
            single("huge offset", 1e300, state(1, true, shadow: true)),
            single("fade with a late start", start: 64, end: 264, 164, state(0.5, true)),
            single("before a late start", start: 64, end: 264, 30, state(0, false)),
            sequence("oscillation around the midpoint does not flicker", hysteresis: 10, [
                (95, state(0.475, false)),
                (105, state(0.525, false)),
                (108, state(0.54, false)),
                (110, state(0.55, true)),
                (95, state(0.475, true)),
                (91, state(0.455, true)),
                (90, state(0.45, true)),
                (89, state(0.445, false)),
                (105, state(0.525, false)),
            ]),
            sequence("shadow keeps through small bounces at the fade end", hysteresis: 10, [
                (200, state(1, true, shadow: true)),
                (195, state(0.975, true, shadow: true)),
                (190, state(0.95, true, shadow: true)),
                (189, state(0.945, true, shadow: false)),
                (195, state(0.975, true, shadow: false)),
                (200, state(1, true, shadow: true)),
            ]),
            sequence("jumps across the band switch at once", hysteresis: 10, [
                (0, state(0, false)),
                (300, state(1, true, shadow: true)),
                (-50, state(0, false)),
                (1e300, state(1, true, shadow: true)),
            ]),
            sequence("without hysteresis the switch follows the midpoint", hysteresis: 0, [
                (99, state(0.495, false)),
                (100, state(0.5, true)),
                (99.99, state(0.49995, false)),
            ]),
        ]
    )
}
