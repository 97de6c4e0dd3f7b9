import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TandemProtocol
import TandemTesting
@testable import TandemClient

/// The URLSession transport where the platform cannot open a WebSocket (Linux's FoundationNetworking on a
/// libcurl without WebSockets): the first attempt fails for good, with a message that says why, instead of
/// retrying forever.
@Suite struct URLSessionTransportTests {
    @Test func aPlatformWithoutWebSocketsFailsAtTheFirstAttempt() async throws {
        let error = URLSessionWebSocketTransport.transportError(NSError(domain: NSURLErrorDomain, code: URLError.unsupportedURL.rawValue,
                                                                        userInfo: [NSURLErrorFailingURLErrorKey: URL(string: "ws://127.0.0.1:1/v1/sync")!,
                                                                                   NSLocalizedDescriptionKey: "WebSockets not supported by libcurl"]))
        guard case .unsupportedPlatform = error else { Issue.record("\(error)"); return }
        #expect(error.isPermanent)
        #expect(URLSessionWebSocketTransport.transportError(URLError(.unsupportedURL)).isPermanent)
        #expect(URLSessionWebSocketTransport.transportError(URLError(.timedOut)) == .timeout)
        #expect(!URLSessionWebSocketTransport.transportError(NSError(domain: NSURLErrorDomain, code: URLError.cannotConnectToHost.rawValue)).isPermanent)

        #if canImport(FoundationNetworking)
        // Here, against a real server: one attempt, then closed for good.
        let harness = try SessionTestServer.start()
        let tokens = TokenCounter()
        let token = harness.token(user: "alice")
        let session = SyncSession(url: harness.server.syncURL, clientID: "a1", tokenProvider: { tokens.increment(); return token },
                                  configuration: TestServer.fastReconnects, transport: URLSessionWebSocketTransport())
        await session.start()
        #expect(await eventually(timeout: .seconds(20)) {
            if case .closed(.transportFailed) = await session.state { true } else { false }
        })
        #expect(tokens.value == 1, "never retried")
        await session.stop()
        await harness.shutdown()
        #endif
    }
}

/// The transport a session gets when the app names none.
@Suite struct PlatformTransportTests {
    @Test func theDefaultIsThePlatformsOwnWebSocket() {
        #if canImport(Darwin)
        #expect(PlatformTransport.make() is URLSessionWebSocketTransport)
        #else
        // FoundationNetworking here cannot open WebSockets: TandemWire's loop is the default.
        #expect(PlatformTransport.make() is WireTransport)
        #endif
    }
}
