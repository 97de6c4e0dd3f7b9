import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TandemProtocol
import TandemWire
@testable import TandemServer

@Suite struct PageRoutesTests {
    private func get(_ path: String, method: String = "GET", headers: HTTPHeaders = [:]) -> HTTPResponse? {
        PageRoutes.respond(to: HTTPRequest(method: method, target: path, headers: headers))
    }

    /// The page cannot ask for a fresh token, so it stops on every close code after which a Swift session stops or
    /// needs a fresh token: one table, read out of the script, against the protocol's policy.
    @Test func thePageStopsOnTheCodesTheProtocolSaysNotToResumeWithoutAFreshToken() throws {
        let sync = try #require(PageRoutes.assets["/client/v1/tandem-sync.mjs"])
        let line = try #require(sync.text.split(separator: "\n").first { $0.contains("const FINAL_CLOSE_CODES = {") })
        let codes = Set(line.matches(of: /(\d{4}):/).compactMap { UInt16($0.output.1) })
        let expected = Set(CloseCode.allDefined.filter { $0.reconnectPolicy != .resume }.map(\.rawValue))
        #expect(codes == expected)
    }

    @Test func theIndexIsHTMLWithAStrictPolicyAndRevalidation() throws {
        let response = try #require(get("/"))
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "no-cache")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        #expect(response.headers["Referrer-Policy"] == "no-referrer")
        let policy = try #require(response.headers["Content-Security-Policy"])
        #expect(policy.contains("default-src 'none'"))
        #expect(policy.contains("script-src 'self'"))
        #expect(policy.contains("frame-ancestors 'none'"))
        #expect(!policy.contains("unsafe"))
        #expect(String(decoding: response.body, as: UTF8.self).hasPrefix("<!doctype html>"))
    }

    @Test func everyAssetTheIndexReferencesIsServedWithItsMediaType() throws {
        let html = String(decoding: try #require(get("/")).body, as: UTF8.self)
        let referenced = html.components(separatedBy: "\"").filter { $0.hasPrefix("/page/") }
        #expect(Set(referenced) == ["/page/app.css", "/page/scroll-chrome.js", "/page/app.mjs"])
        // The page's module imports the web client library and its scroll smoothing from their versioned paths.
        let app = String(decoding: try #require(get("/page/app.mjs")).body, as: UTF8.self)
        let imported = app.matches(of: /from '(\/[^']+)'/).map { String($0.output.1) }
        #expect(imported == ["/client/v1/tandem-sync.mjs", "/client/v1/scroll-interpolator.mjs"])
        for path in referenced + imported {
            let response = try #require(get(path), "\(path) is not served")
            #expect(response.status == 200)
            let expected = path.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
            #expect(response.headers["Content-Type"] == expected)
            #expect(response.headers["Content-Security-Policy"] == PageRoutes.contentSecurityPolicy)
        }
    }

    @Test func theMarkupHasNoInlineCodeTheCSPWouldBlock() throws {
        let html = String(decoding: try #require(get("/")).body, as: UTF8.self)
        #expect(!html.contains("<script>"), "every script needs a src")
        #expect(!html.contains("<style"), "styles live in app.css")
        #expect(!html.contains(" style="), "no inline style attributes")
        #expect(html.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "no inline event handlers")
        #expect(!html.contains("http://") && !html.contains("https://"), "nothing from other origins")
    }

    /// The invitation form bounds the name exactly as the accept endpoint does, and may fetch it (same origin).
    @Test func theInvitationFormUsesTheServersNameLimitAndThePolicyAllowsTheAccept() throws {
        let html = String(decoding: try #require(get("/")).body, as: UTF8.self)
        let script = String(decoding: try #require(get("/page/app.mjs")).body, as: UTF8.self)
        #expect(html.contains("id=\"invite-name\"") && html.contains("\"maxNameBytes\":\(InviteRoutes.maxNameBytes)"))
        #expect(script.contains("const MAX_NAME_BYTES = SETTINGS.maxNameBytes;") && script.contains("input.maxLength = MAX_NAME_BYTES;"))
        #expect(script.contains("'/v1/invites/' + code + '/accept'"), "the code goes only into the accept path")
        #expect(PageRoutes.contentSecurityPolicy.contains("connect-src 'self'"))
    }

    /// The index's one settings marker is filled with the server's rules as JSON the page reads; nothing else
    /// of the page's files is changed on the way out.
    @Test func theIndexCarriesTheServersRulesInPlaceOfItsMarker() throws {
        let html = String(decoding: try #require(get("/")).body, as: UTF8.self)
        #expect(!html.contains("{{"), "no marker left")
        let block = try #require(html.firstMatch(of: /<script id="page-settings" type="application\/json">([^<]*)<\/script>/))
        let settings = try JSONValue.parse(String(block.output.1))
        #expect(settings["maxNameBytes"]?.doubleValue == Double(InviteRoutes.maxNameBytes))
        #expect(settings["invitationCodeLengths"] == .array([.number(Double(InvitationCode.lengths.lowerBound)), .number(Double(InvitationCode.lengths.upperBound))]))
        #expect(PageSettings().fill(Array("a {{settings}} b".utf8)) == Array("a ".utf8) + PageSettings().json + Array(" b".utf8))
        for path in ["/page/app.css", "/page/scroll-chrome.js", "/client/v1/tandem-sync.mjs", "/client/v1/scroll-interpolator.mjs", "/page/app.mjs"] {
            #expect(try #require(get(path)).body == PageRoutes.assets[path]?.body)
        }
    }

    @Test func aMatchingETagGetsNotModifiedWithoutABody() throws {
        let first = try #require(get("/page/app.mjs"))
        let tag = try #require(first.headers["ETag"])
        #expect(tag.hasPrefix("\"") && tag.count == 18)
        let again = try #require(get("/page/app.mjs", headers: ["If-None-Match": "\"0000\", \(tag)"]))
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        let weak = try #require(get("/page/app.mjs", headers: ["If-None-Match": "W/\(tag)"]))
        #expect(weak.status == 304)
        let stale = try #require(get("/page/app.mjs", headers: ["If-None-Match": "\"0000000000000000\""]))
        #expect(stale.status == 200)
        #expect(get("/client/v1/tandem-sync.mjs")?.headers["ETag"] != tag, "each asset has its own validator")
    }

    @Test func headAnswersWithTheLengthAndNoBody() throws {
        let head = try #require(get("/", method: "HEAD"))
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.headers["Content-Length"] == "\(try #require(get("/")).body.count)")
        let wire = String(decoding: head.bytes, as: UTF8.self)
        #expect(wire.hasSuffix("\r\n\r\n"), "the head ends the response")
    }

    @Test func otherMethodsAreRefusedAndOtherPathsLeftToTheNextRoute() throws {
        let post = try #require(get("/", method: "POST"))
        #expect(post.status == 405)
        #expect(post.headers["Allow"] == "GET, HEAD")
        #expect(get("/page/") == nil)
        #expect(get("/page/missing.js") == nil)
        #expect(get("/healthz") == nil)
        let query = try #require(get("/?utm=1"), "a query string does not hide the page")
        #expect(query.status == 200)
    }

    @Test func theRunningServerServesThePageNextToItsOperationsEndpoints() async throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.inMemoryStorage = true
        let server = try SyncServer(configuration: configuration, environment: ["TANDEM_SECRET": "test"], logger: .discarding)
        let (data, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Security-Policy") == PageRoutes.contentSecurityPolicy)
        #expect(String(decoding: data, as: UTF8.self).contains("/page/app.mjs"))
        let (_, health) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(server.port)/healthz")!)
        #expect((health as? HTTPURLResponse)?.statusCode == 200)
        await server.shutdown()
    }
}
