import Testing
import TandemWire

/// Serialization of responses and requests, and the client-side response head parser.
@Suite struct HTTPResponseTests {
    @Test func responseSerializesStatusHeadersAndContentLength() {
        let response = HTTPResponse(status: 404, headers: ["Content-Type": "text/plain"], body: Array("nope".utf8))
        #expect(String(decoding: response.bytes, as: UTF8.self) == "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nnope")
    }

    @Test func emptyBodyStillAnnouncesZeroLengthForKeepAlive() {
        #expect(String(decoding: HTTPResponse(status: 200).bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    @Test func switchingProtocolsHasNoContentLength() {
        #expect(String(decoding: HTTPResponse(status: 101, headers: ["Upgrade": "websocket"]).bytes, as: UTF8.self)
            == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
    }

    @Test func explicitContentLengthIsNotDuplicated() {
        let text = String(decoding: HTTPResponse(status: 200, headers: ["Content-Length": "3"], body: [1, 2, 3]).bytes, as: UTF8.self)
        #expect(text.components(separatedBy: "Content-Length").count == 2)
    }

    @Test func serializedRequestParsesBack() throws {
        let request = HTTPRequest(method: "POST", target: "/rooms", headers: ["Host": "h", "X-A": "1"], body: Array("{}".utf8))
        var bytes: [UInt8] = []
        request.serialize(into: &bytes)
        var parser = HTTPRequestParser()
        parser.append(bytes)
        var expected = request
        expected.headers.add(name: "Content-Length", value: "2")
        #expect(try parser.nextRequest() == expected)
    }

    @Test func responseHeadParsesAndLeavesTheFollowingBytes() throws {
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        let frame: [UInt8] = [0x81, 0x02, 0x68, 0x69]
        var parser = HTTPResponseParser()
        for byte in Array(head.utf8).dropLast() {
            parser.append([byte])
            #expect(try parser.nextResponseHead() == nil)
        }
        parser.append([0x0A] + frame)
        let response = try #require(try parser.nextResponseHead())
        #expect(response.status == 101 && response.reason == "Switching Protocols")
        #expect(response.headers["upgrade"] == "websocket")
        #expect(parser.takeBufferedBytes() == frame)
    }

    @Test func statusLineWithoutReasonIsAccepted() throws {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 204\r\n\r\n".utf8))
        #expect(try parser.nextResponseHead()?.status == 204)
    }

    @Test(arguments: ["HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 abc OK\r\n\r\n", "HTTP/1.1\r\n\r\n", "ICY 200 OK\r\n\r\n", "HTTP/1.1 099 x\r\n\r\n"])
    func malformedStatusLineIsRefused(text: String) {
        var parser = HTTPResponseParser()
        parser.append(Array(text.utf8))
        #expect(throws: HTTPParseError.invalidStartLine) { try parser.nextResponseHead() }
    }

    @Test func oversizedResponseHeadIsRefused() {
        var parser = HTTPResponseParser(maxHeaderBytes: 100)
        parser.append(Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "y", count: 200)).utf8))
        #expect(throws: HTTPParseError.headersTooLarge(limit: 100)) { try parser.nextResponseHead() }
    }

    @Test func headersLookupIsCaseInsensitiveAndListAware() {
        var headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "Sec-WebSocket-Protocol": "a, b"]
        headers.add(name: "sec-websocket-protocol", value: " c ,, d")
        #expect(headers.containsToken("UPGRADE", in: "connection"))
        #expect(!headers.containsToken("upgrad", in: "connection"))
        #expect(headers.listElements(for: "Sec-WebSocket-Protocol") == ["a", "b", "c", "d"])
        headers.replaceOrAdd(name: "SEC-WEBSOCKET-PROTOCOL", value: "z")
        #expect(headers.values(for: "Sec-WebSocket-Protocol") == ["z"])
        headers.remove(name: "connection")
        #expect(!headers.contains(name: "Connection") && headers.count == 1)
    }

    @Test func parseErrorsMapToStatuses() {
        #expect(HTTPParseError.headersTooLarge(limit: 1).status == 431)
        #expect(HTTPParseError.unsupportedVersion(HTTPVersion(major: 2, minor: 0)).status == 505)
        #expect(HTTPParseError.bodyTooLarge(limit: 1).status == 413)
        #expect(HTTPParseError.invalidHeader.status == 400)
        #expect(HTTPResponse.reasonPhrase(for: 431) == "Request Header Fields Too Large")
    }
}
