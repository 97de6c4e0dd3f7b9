import Foundation
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

/// A server whose plain requests are held until the test answers them.
private final class HeldRoutes: Sendable {
    private final class Box: Sendable {
        let entries = Mutex<[(String, HTTPResponder)]>([])
    }
    private let held = Box()
    let group: EventLoopGroup
    let server: WebSocketServer

    init(configure: (inout WebSocketServerConfiguration) -> Void = { _ in }) throws {
        var configuration = WebSocketServerConfiguration()
        configuration.port = 0
        configure(&configuration)
        group = try EventLoopGroup(threads: 1)
        let held = held
        server = try WebSocketServer.start(configuration: configuration, group: group, handler: { request, responder in
            if request.path == "/drop" { return }
            if request.path == "/echo" {
                responder.respond(HTTPResponse(status: 200, headers: ["X-Method": request.method], body: request.body))
                return
            }
            held.entries.withLock { $0.append((request.path, responder)) }
        }, accept: { _, _ in nil })
    }

    var paths: [String] { held.entries.withLock { $0.map(\.0) } }

    func answer(_ path: String, status: Int) {
        let responder = held.entries.withLock { held in held.first { $0.0 == path }?.1 }
        responder?.respond(HTTPResponse(status: status, body: Array(path.utf8)))
    }

    var address: SocketAddress { get throws { try SocketAddress.resolveBlocking(host: "127.0.0.1", port: server.port)[0] } }

    func stop() async {
        let server = server, group = group
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                server.shutdown(timeout: .seconds(1))
                group.shutdown()
                continuation.resume()
            }
        }
    }
}

@Suite struct HTTPAsyncRoutesTests {
    @Test func aLaterAnswerKeepsPipelinedResponsesInOrder() async throws {
        let routes = try HeldRoutes()
        let peer = try BlockingPeer(connectingTo: try routes.address)
        try peer.send(Array("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        try await eventually("the first request reaches the route", timeout: .seconds(30)) { routes.paths == ["/slow"] }
        // The second request is not read while the first is unanswered.
        #expect(routes.paths == ["/slow"])
        routes.answer("/slow", status: 200)
        try await eventually("the second request reaches the route", timeout: .seconds(30)) { routes.paths.count == 2 }
        routes.answer("/fast", status: 201)
        var received: [UInt8] = []
        while !received.text.contains("/fast") {
            guard case .success(let chunk) = await peer.receiveOffPool(), !chunk.isEmpty else { break }
            received += chunk
        }
        let text = received.text
        let slow = try #require(text.range(of: "HTTP/1.1 200 OK"))
        let fast = try #require(text.range(of: "HTTP/1.1 201 Created"))
        #expect(slow.lowerBound < fast.lowerBound)
        await routes.stop()
    }

    @Test func aRouteThatDropsItsResponderAnswers500() async throws {
        let routes = try HeldRoutes()
        let peer = try BlockingPeer(connectingTo: try routes.address)
        try peer.send(Array("GET /drop HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let reply = await peer.receiveAllOffPool().bytes.text
        #expect(reply.hasPrefix("HTTP/1.1 500"))
        #expect(reply.contains(#""error":"internal""#))
        await routes.stop()
    }

    @Test func oversizedAndChunkedBodiesGetJSONErrorsWhenAskedFor() async throws {
        let routes = try HeldRoutes { $0.errorBodies = .json; $0.maxBodyBytes = 100 }
        let large = try BlockingPeer(connectingTo: try routes.address)
        try large.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n".utf8) + [UInt8](repeating: 0x20, count: 101))
        let tooLarge = await large.receiveAllOffPool().bytes.text
        #expect(tooLarge.hasPrefix("HTTP/1.1 413"))
        #expect(tooLarge.contains("application/json") && tooLarge.contains(#""error":"body_too_large""#))
        let chunked = try BlockingPeer(connectingTo: try routes.address)
        try chunked.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8))
        let refused = await chunked.receiveAllOffPool().bytes.text
        #expect(refused.hasPrefix("HTTP/1.1 501"))
        #expect(refused.contains(#""error":"transfer_encoding_not_supported""#))
        let unknown = try BlockingPeer(connectingTo: try routes.address)
        try unknown.send(Array("GET /nothing/here HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        // Held (the route decides); answer it to end the exchange.
        try await eventually("held", timeout: .seconds(30)) { routes.paths.contains("/nothing/here") }
        routes.answer("/nothing/here", status: 404)
        #expect(await unknown.receiveAllOffPool().bytes.text.hasPrefix("HTTP/1.1 404"))
        await routes.stop()
    }

    @Test func theHTTPClientSendsBodiesAndReadsResponses() async throws {
        let routes = try HeldRoutes()
        let response = try await HTTPClient.send(method: "POST", url: "http://127.0.0.1:\(routes.server.port)/echo",
                                                 headers: ["Content-Type": "application/json"], body: Array(#"{"a":1}"#.utf8),
                                                 timeout: .seconds(30), on: routes.group.next())
        #expect(response.status == 200)
        #expect(response.headers["X-Method"] == "POST")
        #expect(response.body.text == #"{"a":1}"#)
        await #expect(throws: HTTPClientError.self) {
            _ = try await HTTPClient.send(method: "GET", url: "https://127.0.0.1:1/", on: routes.group.next())
        }
        let port = routes.server.port
        await routes.stop()
        let group = try EventLoopGroup(threads: 1)
        await #expect { _ = try await HTTPClient.send(method: "GET", url: "http://127.0.0.1:\(port)/echo", timeout: .seconds(30), on: group.next()) } throws: { error in
            if case HTTPClientError.connectFailed = error { true } else { false }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                group.shutdown()
                continuation.resume()
            }
        }
    }
}

@Suite struct HTTPResponseBodyTests {
    private func feedByteByByte(_ text: String, limit: Int = 1024) throws(HTTPParseError) -> HTTPResponse? {
        var parser = HTTPResponseParser()
        for byte in Array(text.utf8) {
            parser.append([byte])
            if let response = try parser.nextResponse(maxBodyBytes: limit) { return response }
        }
        return nil
    }

    @Test func aContentLengthBodyIsReadWholeEvenByteByByte() throws {
        let response = try #require(try feedByteByByte("HTTP/1.1 201 Created\r\nContent-Length: 5\r\n\r\nhello"))
        #expect(response.status == 201 && response.body.text == "hello")
        let empty = try #require(try feedByteByByte("HTTP/1.1 204 No Content\r\n\r\n"))
        #expect(empty.body.isEmpty)
    }

    @Test func aBodyWithoutLengthRunsToTheEndOfTheStream() throws(HTTPParseError) {
        var parser = HTTPResponseParser()
        parser.append(Array("HTTP/1.1 200 OK\r\n\r\nall of it".utf8))
        #expect(try parser.nextResponse(maxBodyBytes: 100) == nil)
        #expect(try parser.endOfStream(maxBodyBytes: 100)?.body.text == "all of it")
    }

    @Test func shortLargeAndChunkedBodiesAreErrors() throws {
        var short = HTTPResponseParser()
        short.append(Array("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc".utf8))
        #expect(throws: HTTPParseError.invalidContentLength) { try short.endOfStream(maxBodyBytes: 100) }
        #expect(throws: HTTPParseError.bodyTooLarge(limit: 4)) { try feedByteByByte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", limit: 4) }
        #expect(throws: HTTPParseError.transferEncodingNotSupported) {
            try feedByteByByte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        }
        var nothing = HTTPResponseParser()
        #expect(try nothing.endOfStream(maxBodyBytes: 10) == nil)
    }
}
