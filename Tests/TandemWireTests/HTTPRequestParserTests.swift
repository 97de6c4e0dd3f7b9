import Testing
import TandemWire

/// The incremental HTTP/1.1 request parser: valid requests, pipelining, bodies, limits and
/// every refusal with its status code.
@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String, limits: HTTPRequestParser.Limits = .init()) throws(HTTPParseError) -> [HTTPRequest] {
        var parser = HTTPRequestParser(limits: limits)
        parser.append(Array(text.utf8))
        var requests: [HTTPRequest] = []
        while let request = try parser.nextRequest() {
            requests.append(request)
        }
        return requests
    }

    private func error(_ text: String, limits: HTTPRequestParser.Limits = .init()) -> HTTPParseError? {
        do {
            _ = try parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func parsesRequestLineAndHeaders() throws {
        let requests = try parse("GET /v1/sync?room=a HTTP/1.1\r\nHost: example.com\r\nX-Multi: a\r\nx-multi:  b \r\n\r\n")
        let request = try #require(requests.first)
        #expect(requests.count == 1)
        #expect(request.method == "GET" && request.target == "/v1/sync?room=a" && request.version == .http1_1)
        #expect(request.path == "/v1/sync" && request.query == "room=a")
        #expect(request.headers["host"] == "example.com")
        #expect(request.headers.values(for: "X-MULTI") == ["a", "b"])
        #expect(request.body.isEmpty)
    }

    @Test func parsingDoesNotDependOnHowBytesAreSplit() throws {
        let text = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET /b HTTP/1.1\r\nHost: h\r\n\r\n"
        let whole = try parse(text)
        var parser = HTTPRequestParser()
        var bytewise: [HTTPRequest] = []
        for byte in text.utf8 {
            parser.append([byte])
            while let request = try parser.nextRequest() {
                bytewise.append(request)
            }
        }
        #expect(whole == bytewise)
        #expect(whole.map(\.target) == ["/a", "/b"])
        #expect(whole.first?.body == Array("hello".utf8))
    }

    @Test func pipelinedRequestsComeOutInOrder() throws {
        let text = (1...5).map { "GET /\($0) HTTP/1.1\r\nHost: h\r\n\r\n" }.joined()
        #expect(try parse(text).map(\.target) == ["/1", "/2", "/3", "/4", "/5"])
    }

    @Test func bodyIsHeldBackUntilComplete() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nab".utf8))
        #expect(try parser.nextRequest() == nil)
        parser.append(Array("cdEXTRA".utf8))
        #expect(try parser.nextRequest()?.body == Array("abcd".utf8))
        #expect(parser.bufferedByteCount == 5)
    }

    @Test func bytesAfterAnUpgradeRequestAreHandedOver() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("GET /v1/sync HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n".utf8) + [0x81, 0x80, 1, 2, 3, 4])
        #expect(try parser.nextRequest() != nil)
        #expect(parser.takeBufferedBytes() == [0x81, 0x80, 1, 2, 3, 4])
        #expect(parser.bufferedByteCount == 0)
    }

    @Test func emptyLinesBeforeARequestAreIgnored() throws {
        #expect(try parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").count == 1)
    }

    @Test func keepAliveFollowsVersionAndConnectionHeader() throws {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.1\r\nHost: h\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, CLOSE\r\n\r\n", false),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
        ]
        for (text, keepAlive) in cases {
            #expect(try parse(text).first?.keepAlive == keepAlive, "\(text)")
        }
    }

    @Test func headersOver16KiBFailWith431EvenBeforeTheyEnd() {
        let big = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 17_000)
        let failure = error(big)
        #expect(failure == .headersTooLarge(limit: 16 * 1024))
        #expect(failure?.status == 431)
        #expect(error(big + "\r\n\r\n") == .headersTooLarge(limit: 16 * 1024))
    }

    @Test func headersJustUnderTheLimitAreAccepted() throws {
        let prefix = "GET / HTTP/1.1\r\nHost: h\r\nX-Big: "
        let filler = String(repeating: "a", count: 16 * 1024 - prefix.utf8.count - 4)
        #expect(try parse(prefix + filler + "\r\n\r\n").count == 1)
    }

    @Test func bodyOverLimitFailsWith413BeforeTheBodyArrives() {
        let failure = error("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2000\r\n\r\n", limits: .init(maxBodyBytes: 1000))
        #expect(failure == .bodyTooLarge(limit: 1000))
        #expect(failure?.status == 413)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/3.0", "HTTP/0.9"])
    func nonHTTP1VersionFailsWith505(version: String) {
        let failure = error("GET / \(version)\r\nHost: h\r\n\r\n")
        #expect(failure?.status == 505)
    }

    @Test(arguments: [
        "GET / HTTP/1.10\r\nHost: h\r\n\r\n", "GET / http/1.1\r\nHost: h\r\n\r\n", "GET /  HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET HTTP/1.1\r\nHost: h\r\n\r\n", "GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", "G(T / HTTP/1.1\r\nHost: h\r\n\r\n",
        " GET / HTTP/1.1\r\nHost: h\r\n\r\n",
    ])
    func malformedRequestLineFailsWith400(text: String) {
        #expect(error(text)?.status == 400)
    }

    @Test func invalidMethodTokenIsReportedAsSuch() {
        #expect(error("G@T / HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidMethod)
    }

    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\nName : x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: h\r\nX-A: a\u{1}b\r\n\r\n", "GET / HTTP/1.1\r\nHost: h\r\n: empty\r\n\r\n",
    ])
    func malformedHeaderFailsWith400(text: String) {
        #expect(error(text) == .invalidHeader)
    }

    @Test(arguments: ["GET / HTTP/1.1\nHost: h\n\n", "GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n"])
    func bareLineEndingsFailWith400(text: String) {
        #expect(error(text) == .invalidLineEnding)
    }

    @Test func http11WithoutExactlyOneHostFailsWith400() {
        #expect(error("GET / HTTP/1.1\r\n\r\n") == .invalidHost)
        #expect(error("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == .invalidHost)
    }

    @Test func contentLengthMustBeOneDecimalNumber() throws {
        #expect(error("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\nab") == .invalidContentLength)
        #expect(error("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n") == .invalidContentLength)
        #expect(error("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n") == .invalidContentLength)
        #expect(error("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999\r\n\r\n") == .invalidContentLength)
        #expect(try parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab").first?.body == [0x61, 0x62])
    }

    @Test func transferEncodingFailsWith501() {
        let failure = error("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(failure == .transferEncodingNotSupported)
        #expect(failure?.status == 501)
    }

    @Test func errorIsStickyAndCarriesAClosingResponse() throws {
        var parser = HTTPRequestParser()
        parser.append(Array("BAD\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.invalidStartLine) { try parser.nextRequest() }
        parser.append(Array("GET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        #expect(throws: HTTPParseError.invalidStartLine) { try parser.nextRequest() }
        let response = HTTPParseError.invalidStartLine.response
        #expect(response.status == 400 && response.headers["Connection"] == "close")
    }
}
