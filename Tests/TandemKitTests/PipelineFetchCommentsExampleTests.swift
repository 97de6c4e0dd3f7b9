import Foundation
import Testing
import TandemKit

/// The waterfall article's `fetchSomeJSON`: make a request → perform it → parse the comments,
/// with each job a replaceable step and the network behind an injected transport.
struct ArticleComment: Codable, Equatable, Sendable {
    let id: Int
    let body: String
}

struct CommentsRequest: Equatable, Sendable {
    let url: URL
    let method: String
}

/// The network seam: the live app sends real requests, tests use a fake.
protocol CommentsTransport: Sendable {
    func perform(_ request: CommentsRequest) async throws -> Data
}

enum CommentsError: Error, Equatable {
    case badURL(String)
}

/// The three jobs, each injectable; `live(transport:)` is what the app uses.
struct FetchCommentsSteps: Sendable {
    var makeRequest: PipelineStep<String, CommentsRequest>
    var perform: PipelineStep<CommentsRequest, Data>
    var parse: PipelineStep<Data, [ArticleComment]>

    static func live(transport: any CommentsTransport) -> Self {
        Self(
            makeRequest: PipelineStep("makeRequest") { path in
                guard let url = URL(string: path), url.scheme != nil else { throw CommentsError.badURL(path) }
                return CommentsRequest(url: url, method: "GET")
            },
            perform: PipelineStep("perform", retry: RetryPolicy(maxAttempts: 2)) { request in
                try await transport.perform(request)
            },
            parse: PipelineStep("parse") { data in
                try JSONDecoder().decode([ArticleComment].self, from: data)
            }
        )
    }
}

func fetchSomeJSON(_ steps: FetchCommentsSteps) -> Pipeline<String, [ArticleComment]> {
    Pipeline(steps.makeRequest).then(steps.perform).then(steps.parse)
}

/// A transport answering from a script; records the requests it saw.
final class FakeCommentsTransport: CommentsTransport {
    let requests = FlowLog<CommentsRequest>()
    private let respond: @Sendable (Int) async throws -> Data

    init(respond: @escaping @Sendable (_ attempt: Int) async throws -> Data) {
        self.respond = respond
    }

    func perform(_ request: CommentsRequest) async throws -> Data {
        requests.append(request)
        return try await respond(requests.all.count)
    }
}

@Suite struct PipelineFetchCommentsExampleTests {
    static let json = Data(#"[{"id":1,"body":"first"},{"id":2,"body":"second"}]"#.utf8)
    static let environment = PipelineEnvironment(clock: PipelineTestClock(immediate: true), random: { 0 })

    @Test func fetchesAndParsesComments() async throws {
        let transport = FakeCommentsTransport { _ in Self.json }
        let comments = try await fetchSomeJSON(.live(transport: transport)).run("https://example.com/comments", environment: Self.environment)
        #expect(comments == [ArticleComment(id: 1, body: "first"), ArticleComment(id: 2, body: "second")])
        #expect(transport.requests.all == [CommentsRequest(url: URL(string: "https://example.com/comments")!, method: "GET")])
    }

    @Test func failingNetworkStepStopsBeforeParsing() async {
        let transport = FakeCommentsTransport { _ in throw URLError(.notConnectedToInternet) }
        var steps = FetchCommentsSteps.live(transport: transport)
        let parsed = PipelineCounter()
        let realParse = steps.parse
        steps.parse = PipelineStep("parse") { data in
            parsed.increment()
            return try await Pipeline(realParse).run(data)
        }
        let run = fetchSomeJSON(steps).start("https://example.com/comments", environment: Self.environment)
        let result = await run.result
        #expect(result.failureError?.stepName == "perform")
        #expect(result.failureError?.stepIndex == 1)
        #expect((result.failureError?.underlying as? URLError)?.code == .notConnectedToInternet)
        #expect(transport.requests.all.count == 2)
        #expect(parsed.count == 0)
    }

    @Test func badPathFailsInFirstStepWithoutNetwork() async {
        let transport = FakeCommentsTransport { _ in Self.json }
        let result = await fetchSomeJSON(.live(transport: transport)).start("not a url", environment: Self.environment).result
        #expect(result.failureError?.stepName == "makeRequest")
        #expect(result.failureError?.underlying as? CommentsError == .badURL("not a url"))
        #expect(transport.requests.all.isEmpty)
    }

    @Test func malformedJSONFailsInParse() async {
        let transport = FakeCommentsTransport { _ in Data("{".utf8) }
        let result = await fetchSomeJSON(.live(transport: transport)).start("https://example.com/c", environment: Self.environment).result
        #expect(result.failureError?.stepName == "parse")
        #expect(result.failureError?.underlying is DecodingError)
    }

    @Test func cancellingDuringNetworkStepCancelsRequestAndSkipsParse() async {
        let inFlight = PipelineTestGate()
        let never = PipelineTestGate()
        let requestCancelled = PipelineCounter()
        let transport = FakeCommentsTransport { _ in
            inFlight.open()
            do { try await never.waitCancellable() } catch { requestCancelled.increment(); throw error }
            return Self.json
        }
        var steps = FetchCommentsSteps.live(transport: transport)
        let parsed = PipelineCounter()
        steps.parse = PipelineStep("parse") { _ in parsed.increment(); return [] }
        let completions = PipelineCounter()
        let run = fetchSomeJSON(steps).start("https://example.com/comments", environment: Self.environment) { _ in completions.increment() }
        try? await inFlight.waitCancellable()
        run.cancel()
        #expect(await run.result.isCancelled)
        #expect(requestCancelled.count == 1)
        #expect(transport.requests.all.count == 1)
        #expect(parsed.count == 0)
        #expect(completions.count == 1)
    }
}
