import Testing
import TandemProtocol
@testable import TandemClient

/// The article's page state, as an app would declare it.
struct PageState: Codable, Equatable, Sendable {
    struct Offset: Codable, Equatable, Sendable {
        var x: Double
        var y: Double
    }

    var tabIndex: Int
    var contentOffset: Offset
    var addToCartSelected: Bool
    var marks: [String: Bool]

    static let initial = PageState(tabIndex: 0, contentOffset: Offset(x: 0, y: 0), addToCartSelected: false, marks: [:])
}

@Suite struct SharedStateTests {
    typealias F = Fixtures

    static let articleDocument: JSONValue = [
        "tabIndex": 1,
        "contentOffset": ["x": 0, "y": 450],
        "addToCartSelected": true,
        "marks": ["video_playing": true, "price_sheet_shown": false],
    ]

    @Test func readsTheArticlesDocument() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        let page = try shared.value(in: try #require(Document(Self.articleDocument)))
        #expect(page == PageState(tabIndex: 1, contentOffset: .init(x: 0, y: 450), addToCartSelected: true,
                                  marks: ["video_playing": true, "price_sheet_shown": false]))
    }

    @Test func missingFieldsReadAsTheDefaults() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        #expect(try shared.value(in: Document()) == PageState.initial)
        let partial = Document(["tabIndex": 2, "contentOffset": ["y": 9]])
        let page = try shared.value(in: partial)
        #expect(page.tabIndex == 2 && page.contentOffset == .init(x: 0, y: 9) && page.marks.isEmpty)
    }

    @Test func mutationBecomesTheMinimalOps() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        let document = try #require(Document(Self.articleDocument))
        let ops = try shared.mutation(of: document) { page in
            page.contentOffset.y = 900
            page.marks["video_playing"] = nil
            page.marks["zoomed"] = true
        }
        #expect(ops == [F.set("/contentOffset/y", 900), F.set("/marks/zoomed", true), F.remove("/marks/video_playing")])
        #expect(try shared.mutation(of: document) { _ in }.isEmpty)
    }

    @Test func unknownFieldsArePreserved() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        var members = Self.articleDocument
        if case .object(var top) = members {
            top["videoPosition"] = 12.5 // written by a newer app version
            top["contentOffset"] = ["x": 0, "y": 450, "zoom": 2]
            members = .object(top)
        }
        var document = try #require(Document(members))
        let ops = try shared.mutation(of: document) { $0.tabIndex = 3; $0.contentOffset.x = 5 }
        try document.apply(ops)
        #expect(document.root == [
            "tabIndex": 3, "contentOffset": ["x": 5, "y": 450, "zoom": 2], "addToCartSelected": true,
            "marks": ["video_playing": true, "price_sheet_shown": false], "videoPosition": 12.5,
        ])
    }

    @Test func mutationAppliedThroughTheEngineRoundTrips() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        var engine = F.connectedEngine()
        try engine.localChange(try shared.mutation(of: engine.visible) { $0.addToCartSelected = true; $0.tabIndex = 2 })
        let page = try shared.value(in: engine.visible)
        #expect(page.addToCartSelected && page.tabIndex == 2)
    }

    @Test func fieldOfTheWrongTypeIsAReadableError() throws {
        let shared = try SharedState(defaultValue: PageState.initial)
        let document = Document(["tabIndex": "one"])
        #expect(throws: SharedStateError.self) { try shared.value(in: document) }
        do {
            _ = try shared.value(in: document)
        } catch {
            #expect(error.description.contains("does not match the app's type"))
        }
    }

    @Test func valueThatIsNotAnObjectIsRefused() {
        #expect(throws: SharedStateError.self) { try SharedState(defaultValue: 5) }
    }
}
