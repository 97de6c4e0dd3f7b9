import Foundation
import Testing
import TandemKit

@Suite struct ScrollChromeTableTests {
    @Test(arguments: ScrollChromeCase.table.cases.map(\.name))
    func caseFromTheSharedTable(name: String) throws {
        let testCase = try #require(ScrollChromeCase.table.cases.first { $0.name == name })
        let config = try ScrollChromeConfiguration(
            fadeStart: testCase.configuration.fadeStart,
            fadeEnd: testCase.configuration.fadeEnd,
            hysteresis: testCase.configuration.hysteresis
        )
        var previous: NavigationBarState?
        for (index, step) in testCase.steps.enumerated() {
            let state = config.next(offset: step.offset, previous: previous)
            #expect(abs(state.backgroundAlpha - step.expected.backgroundAlpha) < 1e-9, "step \(index) offset \(step.offset): \(state)")
            #expect(state.titleColor == step.expected.titleColor, "step \(index) offset \(step.offset)")
            #expect(state.statusBarStyle == step.expected.statusBarStyle, "step \(index) offset \(step.offset)")
            #expect(state.castsShadow == step.expected.castsShadow, "step \(index) offset \(step.offset)")
            previous = state
        }
    }
}

@Suite struct ScrollChromeCaseTableTests {
    static let jsonURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/scroll-chrome-cases.json")

    @Test func jsonFileMatchesTheSwiftTable() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        if ProcessInfo.processInfo.environment["TANDEM_WRITE_SCROLL_CHROME_CASES"] == "1" {
            try encoder.encode(ScrollChromeCase.table).write(to: Self.jsonURL)
        }
        let data = try Data(contentsOf: Self.jsonURL)
        let decoded = try JSONDecoder().decode(ScrollChromeCaseTable.self, from: data)
        let stale = "docs/scroll-chrome-cases.json is stale; rerun this test with TANDEM_WRITE_SCROLL_CHROME_CASES=1"
        #expect(decoded.description == ScrollChromeCase.table.description, "\(stale)")
        #expect(decoded.cases.map(\.name) == ScrollChromeCase.table.cases.map(\.name), "\(stale)")
        for (file, swift) in zip(decoded.cases, ScrollChromeCase.table.cases) where file != swift {
            Issue.record("case \"\(swift.name)\" differs: \(stale)")
        }
    }

    @Test func everyConfigurationInTheTableIsValidJSONConfiguration() throws {
        let data = try Data(contentsOf: Self.jsonURL)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(object["cases"] as? [[String: Any]])
        #expect(cases.count == ScrollChromeCase.table.cases.count)
        for entry in cases {
            let config = try JSONSerialization.data(withJSONObject: try #require(entry["configuration"]))
            _ = try JSONDecoder().decode(ScrollChromeConfiguration.self, from: config)
        }
    }
}

@Suite struct ScrollChromeConfigurationTests {
    @Test func rejectsAnEmptyOrReversedFade() {
        #expect(throws: ScrollChromeError.emptyFadeRange(start: 100, end: 100)) { try ScrollChromeConfiguration(fadeStart: 100, fadeEnd: 100) }
        #expect(throws: ScrollChromeError.emptyFadeRange(start: 10, end: -5)) { try ScrollChromeConfiguration(fadeStart: 10, fadeEnd: -5) }
    }

    @Test func rejectsNonFiniteAndNegativeValues() {
        #expect(throws: ScrollChromeError.notFinite(field: "fadeEnd", value: .infinity)) { try ScrollChromeConfiguration(fadeEnd: .infinity) }
        #expect(throws: ScrollChromeError.self) { try ScrollChromeConfiguration(fadeStart: .nan, fadeEnd: 10) }
        #expect(throws: ScrollChromeError.negative(field: "hysteresis", value: -1)) { try ScrollChromeConfiguration(fadeEnd: 100, hysteresis: -1) }
    }

    @Test func rejectsAHysteresisBandWiderThanHalfTheFade() throws {
        #expect(throws: ScrollChromeError.hysteresisTooWide(hysteresis: 51, limit: 50)) { try ScrollChromeConfiguration(fadeEnd: 100, hysteresis: 51) }
        _ = try ScrollChromeConfiguration(fadeEnd: 100, hysteresis: 50)
    }

    @Test func errorsTellTheUserWhatToChange() {
        let text = ScrollChromeError.emptyFadeRange(start: 0, end: -20).description
        #expect(text.contains("-20.0") && text.contains("greater than the start"))
        #expect(ScrollChromeError.hysteresisTooWide(hysteresis: 60, limit: 50).description.contains("at most 50.0"))
    }

    @Test func decodingValidates() {
        let bad = Data(#"{"fadeStart": 10, "fadeEnd": 5}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ScrollChromeConfiguration.self, from: bad) }
        let defaults = Data(#"{"fadeEnd": 80}"#.utf8)
        #expect((try? JSONDecoder().decode(ScrollChromeConfiguration.self, from: defaults)) == (try? ScrollChromeConfiguration(fadeEnd: 80)))
    }

    @Test func fadeEndDerivesFromHeaderHeightMinusChromeHeight() throws {
        let layout = try ScrollChromeLayout(barHeight: 44, safeAreaTop: 47)
        let config = try ScrollChromeConfiguration(headerHeight: 300, layout: layout, hysteresis: 8)
        #expect(config.fadeEnd == 300 - 91)
        #expect(config.fadeStart == 0)
        #expect(config.next(offset: 209, previous: nil).backgroundAlpha == 1)
        #expect(config.next(offset: 208, previous: nil).backgroundAlpha < 1)
        // A header no taller than the bar can never fade.
        #expect(throws: ScrollChromeError.emptyFadeRange(start: 0, end: -11)) { try ScrollChromeConfiguration(headerHeight: 80, layout: layout) }
    }

    @Test func nanOffsetKeepsThePreviousState() throws {
        let config = try ScrollChromeConfiguration(fadeEnd: 200, hysteresis: 10)
        let previous = config.next(offset: 150, previous: nil)
        #expect(config.next(offset: .nan, previous: previous) == previous)
        #expect(config.next(offset: .nan, previous: nil) == config.next(offset: 0, previous: nil))
        #expect(config.alpha(at: .nan) == 0)
    }

    @Test func infiniteOffsetsClamp() throws {
        let config = try ScrollChromeConfiguration(fadeStart: 20, fadeEnd: 120)
        #expect(config.next(offset: .infinity, previous: nil) == NavigationBarState(backgroundAlpha: 1, titleColor: .primary, statusBarStyle: .darkContent, castsShadow: true))
        #expect(config.next(offset: -.infinity, previous: nil).backgroundAlpha == 0)
    }
}

@Suite struct ScrollChromePropertyTests {
    private func randomConfiguration(_ random: inout SeededRandom) throws -> ScrollChromeConfiguration {
        let start = Double.random(in: -100...400, using: &random)
        let end = start + Double.random(in: 1...600, using: &random)
        let hysteresis = Double.random(in: 0...((end - start) / 2), using: &random)
        return try ScrollChromeConfiguration(fadeStart: start, fadeEnd: end, hysteresis: hysteresis)
    }

    private func randomOffset(_ random: inout SeededRandom) -> Double {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return Double.random(in: -1e9...1e9, using: &random)
        case 1: return Double.random(in: -300...0, using: &random)
        default: return Double.random(in: -200...1200, using: &random)
        }
    }

    @Test func alphaStaysWithinZeroAndOneAndIsMonotonic() throws {
        var random = SeededRandom(seed: 0x7A4D_E3)
        for _ in 0..<200 {
            let config = try randomConfiguration(&random)
            let offsets = (0..<200).map { _ in randomOffset(&random) }.sorted()
            var last = -Double.infinity
            for offset in offsets {
                let alpha = config.next(offset: offset, previous: nil).backgroundAlpha
                #expect(alpha >= 0 && alpha <= 1, "offset \(offset) gave \(alpha)")
                #expect(alpha >= last, "alpha fell from \(last) to \(alpha) at offset \(offset) with \(config)")
                last = alpha
            }
        }
    }

    @Test func lookSwitchesOnlyOutsideTheHysteresisBandAndIsPure() throws {
        var random = SeededRandom(seed: 0xC0FFEE)
        for _ in 0..<100 {
            let config = try randomConfiguration(&random)
            var previous: NavigationBarState?
            var offset = config.midpoint
            for _ in 0..<300 {
                // A random walk that lingers near the midpoint, like a finger that hesitates.
                offset += Double.random(in: -(config.hysteresis * 1.5 + 1)...(config.hysteresis * 1.5 + 1), using: &random)
                let state = config.next(offset: offset, previous: previous)
                #expect(state == config.next(offset: offset, previous: previous))
                #expect((state.titleColor == .primary) == (state.statusBarStyle == .darkContent))
                if let previous, previous.titleColor != state.titleColor {
                    if state.titleColor == .primary {
                        #expect(offset >= config.midpoint + config.hysteresis)
                    } else {
                        #expect(offset < config.midpoint - config.hysteresis)
                    }
                }
                if state.castsShadow { #expect(offset >= config.fadeEnd - config.hysteresis) }
                previous = state
            }
        }
    }
}

@Suite struct ScrollChromeLayoutTests {
    @Test func backgroundExtendsUnderTheStatusBarWhileControlsStayInTheSafeArea() throws {
        let layout = try ScrollChromeLayout(barHeight: 44, safeAreaTop: 59)
        #expect(layout.backgroundTop == 0)
        #expect(layout.backgroundHeight == 103)
        #expect(layout.controlsTop == 59)
        #expect(layout.chromeHeight == 103)
    }

    @Test func contentInsetDependsOnWhoAddsTheSafeArea() throws {
        let layout = try ScrollChromeLayout(barHeight: 44, safeAreaTop: 20)
        #expect(layout.contentInsetTop(systemAddsSafeArea: true) == 44)
        #expect(layout.contentInsetTop(systemAddsSafeArea: false) == 64)
    }

    @Test func scrolledDistanceIsZeroAtRest() throws {
        let layout = try ScrollChromeLayout(barHeight: 44, safeAreaTop: 20)
        #expect(layout.scrolledDistance(contentOffsetY: -64, adjustedInsetTop: 64) == 0)
        #expect(layout.scrolledDistance(contentOffsetY: -100, adjustedInsetTop: 64) == -36)
        #expect(layout.scrolledDistance(contentOffsetY: 30, adjustedInsetTop: 0) == 30)
    }

    @Test func rejectsNegativeOrNonFiniteDimensions() {
        #expect(throws: ScrollChromeError.negative(field: "barHeight", value: -1)) { try ScrollChromeLayout(barHeight: -1, safeAreaTop: 0) }
        #expect(throws: ScrollChromeError.notFinite(field: "safeAreaTop", value: .infinity)) { try ScrollChromeLayout(barHeight: 44, safeAreaTop: .infinity) }
    }
}
