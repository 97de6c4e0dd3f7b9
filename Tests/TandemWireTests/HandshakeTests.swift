import Testing
import TandemWire

/// The RFC 6455 opening handshake on both sides.
@Suite struct HandshakeTests {
    private let server = WebSocketServerHandshake(supportedSubprotocols: ["tandem.v1", "tandem.v0"])

    private func upgradeRequest(_ extra: [(String, String)] = [], removing: [String] = [], method: String = "GET", version: HTTPVersion = .http1_1) -> HTTPRequest {
        var headers: HTTPHeaders = [
            "Host": "example.com", "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13",
        ]
        for name in removing { headers.remove(name: name) }
        for (name, value) in extra { headers.replaceOrAdd(name: name, value: value) }
        return HTTPRequest(method: method, target: "/v1/sync", version: version, headers: headers)
    }

    private func refusal(_ request: HTTPRequest) -> WebSocketUpgradeError? {
        do {
            _ = try server.evaluate(request)
            return nil
        } catch {
            return error
        }
    }

    @Test func validUpgradeGetsTheRFCSampleAccept() throws {
        let upgrade = try server.evaluate(upgradeRequest())
        let response = upgrade.response()
        #expect(response.status == 101)
        #expect(response.headers["Sec-WebSocket-Accept"] == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(response.headers.containsToken("websocket", in: "Upgrade"))
        #expect(response.headers.containsToken("upgrade", in: "Connection"))
        #expect(response.headers["Sec-WebSocket-Protocol"] == nil)
        #expect(upgrade.subprotocol == nil)
    }

    @Test func upgradeTokensAreMatchedCaseInsensitivelyInLists() throws {
        let request = upgradeRequest([("Connection", "keep-alive, UPGRADE"), ("Upgrade", "WebSocket")])
        #expect(try server.evaluate(request).key == "dGhlIHNhbXBsZSBub25jZQ==")
    }

    @Test func serverPicksItsMostPreferredOfferedSubprotocol() throws {
        let upgrade = try server.evaluate(upgradeRequest([("Sec-WebSocket-Protocol", "chat, tandem.v0, tandem.v1")]))
        #expect(upgrade.subprotocol == "tandem.v1")
        #expect(upgrade.offeredSubprotocols == ["chat", "tandem.v0", "tandem.v1"])
        #expect(upgrade.response().headers["Sec-WebSocket-Protocol"] == "tandem.v1")
    }

    @Test func noCommonSubprotocolMeansNone() throws {
        let upgrade = try server.evaluate(upgradeRequest([("Sec-WebSocket-Protocol", "chat")]))
        #expect(upgrade.subprotocol == nil)
        #expect(upgrade.response().headers["Sec-WebSocket-Protocol"] == nil)
    }

    @Test func originIsExposedForTheOwnersDecision() throws {
        #expect(try server.evaluate(upgradeRequest([("Origin", "https://shop.example")])).origin == "https://shop.example")
        #expect(try server.evaluate(upgradeRequest()).origin == nil)
    }

    @Test func nonGetIsRefusedWith405() {
        let error = refusal(upgradeRequest(method: "POST"))
        #expect(error == .methodNotAllowed("POST"))
        #expect(error?.response.status == 405 && error?.response.headers["Allow"] == "GET")
    }

    @Test func missingUpgradeIsRefusedWith426NamingWebSocket() {
        let error = refusal(upgradeRequest(removing: ["Upgrade"]))
        #expect(error == .missingUpgradeHeader)
        #expect(error?.response.status == 426 && error?.response.headers["Upgrade"] == "websocket")
    }

    @Test func missingConnectionUpgradeIsRefusedWith400() {
        #expect(refusal(upgradeRequest([("Connection", "keep-alive")])) == .missingConnectionUpgrade)
        #expect(refusal(upgradeRequest([("Connection", "keep-alive")]))?.status == 400)
    }

    @Test(arguments: ["", "not base64!", "AAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAA==AA", "AAAAAAAAAAAAAAAAAAAAAAAAAAA="])
    func keyThatIsNotBase64Of16BytesIsRefusedWith400(key: String) {
        #expect(refusal(upgradeRequest([("Sec-WebSocket-Key", key)])) == .invalidKey)
    }

    @Test func missingOrRepeatedKeyIsRefused() {
        #expect(refusal(upgradeRequest(removing: ["Sec-WebSocket-Key"])) == .invalidKey)
        var request = upgradeRequest()
        request.headers.add(name: "Sec-WebSocket-Key", value: "AAAAAAAAAAAAAAAAAAAAAA==")
        #expect(refusal(request) == .invalidKey)
    }

    @Test(arguments: ["8", "12", "14", "13, 8"])
    func otherVersionIsRefusedWith426Announcing13(version: String) {
        let error = refusal(upgradeRequest([("Sec-WebSocket-Version", version)]))
        #expect(error == .unsupportedVersion(version))
        #expect(error?.response.status == 426)
        #expect(error?.response.headers["Sec-WebSocket-Version"] == "13")
    }

    @Test func missingVersionIsRefusedWith400() {
        #expect(refusal(upgradeRequest(removing: ["Sec-WebSocket-Version"])) == .missingVersion)
    }

    @Test func http10UpgradeIsRefused() {
        #expect(refusal(upgradeRequest(version: .http1_0)) == .versionTooOld)
    }

    @Test func plainRequestIsNotAnUpgrade() {
        #expect(!WebSocketServerHandshake.isUpgradeRequest(HTTPRequest(method: "GET", target: "/healthz", headers: ["Host": "h"])))
        #expect(WebSocketServerHandshake.isUpgradeRequest(upgradeRequest()))
    }

    @Test func clientRequestCarriesAFreshKeyAndTheOfferedProtocols() throws {
        let client = WebSocketClientHandshake(
            host: "example.com:8080", path: "/v1/sync", subprotocols: ["tandem.v1", "x"], origin: "https://o.example",
            extraHeaders: ["Authorization": "Bearer t"], random: CyclingRandom()
        )
        #expect(WebSocketHandshake.isValidKey(client.key))
        #expect(client.key == WebSocketHandshake.makeKey(random: CyclingRandom()))
        #expect(client.key != WebSocketClientHandshake(host: "h").key, "keys differ per connection")
        let request = client.request
        #expect(request.method == "GET" && request.target == "/v1/sync")
        #expect(request.headers["Host"] == "example.com:8080")
        #expect(request.headers["Sec-WebSocket-Protocol"] == "tandem.v1, x")
        #expect(request.headers["Origin"] == "https://o.example")
        #expect(request.headers["Authorization"] == "Bearer t")
        #expect(try server.evaluate(request).subprotocol == "tandem.v1")
    }

    @Test func handshakeRoundTripsThroughBothParsersWithFramesRightBehindThe101() throws {
        let client = WebSocketClientHandshake(host: "h", path: "/v1/sync", subprotocols: ["tandem.v1"])
        var requestParser = HTTPRequestParser()
        requestParser.append(client.requestBytes)
        let request = try #require(try requestParser.nextRequest())
        let upgrade = try server.evaluate(request)

        var wire = upgrade.response().bytes
        let serverMachine = WebSocketConnectionStateMachine(role: .server)
        try serverMachine.sendText("{\"type\":\"welcome\"}", into: &wire)

        var responseParser = HTTPResponseParser()
        responseParser.append(wire)
        let response = try #require(try responseParser.nextResponseHead())
        #expect(try client.validate(response) == "tandem.v1")
        var clientMachine = WebSocketConnectionStateMachine(role: .client)
        #expect(clientMachine.receive(responseParser.takeBufferedBytes()).events == [.text("{\"type\":\"welcome\"}")])
    }

    private func clientRefusal(_ mutate: (inout HTTPResponse) -> Void, offering: [String] = ["tandem.v1"]) -> WebSocketHandshakeError? {
        let client = WebSocketClientHandshake(host: "h", subprotocols: offering)
        var response = HTTPResponse(status: 101, headers: [
            "Upgrade": "websocket", "Connection": "Upgrade",
            "Sec-WebSocket-Accept": WebSocketHandshake.acceptValue(forKey: client.key),
        ])
        mutate(&response)
        do {
            _ = try client.validate(response)
            return nil
        } catch {
            return error
        }
    }

    @Test func clientAcceptsAValidResponseWithoutSubprotocol() {
        #expect(clientRefusal { _ in } == nil)
    }

    @Test func clientRefusesNon101() {
        #expect(clientRefusal { $0.status = 401; $0.reason = "Unauthorized" } == .unexpectedStatus(401, reason: "Unauthorized"))
    }

    @Test func clientRefusesWrongAccept() {
        #expect(clientRefusal { $0.headers.replaceOrAdd(name: "Sec-WebSocket-Accept", value: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") } == .invalidAccept)
        #expect(clientRefusal { $0.headers.remove(name: "Sec-WebSocket-Accept") } == .invalidAccept)
    }

    @Test func clientRefusesMissingUpgradeHeaders() {
        #expect(clientRefusal { $0.headers.remove(name: "Upgrade") } == .missingUpgradeHeader)
        #expect(clientRefusal { $0.headers.replaceOrAdd(name: "Connection", value: "keep-alive") } == .missingConnectionUpgrade)
    }

    @Test func clientRefusesASubprotocolItDidNotOffer() {
        #expect(clientRefusal { $0.headers.add(name: "Sec-WebSocket-Protocol", value: "chat") } == .unexpectedSubprotocol("chat"))
        #expect(clientRefusal({ $0.headers.add(name: "Sec-WebSocket-Protocol", value: "tandem.v1") }, offering: []) == .unexpectedSubprotocol("tandem.v1"))
    }

    @Test func clientRefusesAnExtensionItDidNotOffer() {
        #expect(clientRefusal { $0.headers.add(name: "Sec-WebSocket-Extensions", value: "permessage-deflate") } == .unexpectedExtension("permessage-deflate"))
    }
}
