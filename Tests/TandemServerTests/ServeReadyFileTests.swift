import Foundation
import Testing
import TandemProtocol
import TandemSubprocess
import TandemTestSupport

/// `tandem serve --ready-file PATH`: a program that starts the server on `--port 0` reads where it listens
/// from a JSON file, written once the server serves, instead of scraping the banner.
@Suite struct ServeReadyFileTests {
    @Test func theReadyFileSaysWhereTheServerListens() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let ready = data + "-ready.json"
        defer { try? FileManager.default.removeItem(atPath: ready) }
        let server = try ServeProcess.start(["serve", "--port", "0", "--data", data, "--log-level", "error", "--ready-file", ready], secret: "ready")
        defer { server.process.terminate() }
        _ = server.read { _ in FileManager.default.fileExists(atPath: ready) }
        let bytes = try #require(FileManager.default.contents(atPath: ready))
        let fields = try #require(try JSONValue.parse(Array(bytes)).objectValue)
        let url = try #require(fields["url"]?.stringValue)
        let port = try #require(fields["port"]?.doubleValue)
        #expect(url == "ws://127.0.0.1:\(Int(port))/v1/sync")
        #expect(fields["http"]?.stringValue == "http://127.0.0.1:\(Int(port))")
        #expect(fields["pid"]?.doubleValue == Double(server.process.processIdentifier))
        #expect(port > 0)
    }

    @Test func aReadyFileThatCannotBeWrittenStopsTheServerWithAMessage() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServeProcess.start(["serve", "--port", "0", "--data", data, "--ready-file", "/nonexistent-folder/ready.json"],
                                            secret: "ready", capturesErrors: true)
        let errors = server.readErrors { $0.contains("ready-file") }
        #expect(errors.contains("cannot write --ready-file /nonexistent-folder/ready.json"))
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 1)
    }
}
