import Foundation
import Testing
import TandemProtocol
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Everything the server writes in its data folder is its own user's alone: the folder 0700 and every file in it
/// 0600 — the secrets, both databases with their `-wal` and `-shm` files, the journal's segments and lock — whatever
/// the process's umask lets through (this test runs under 022, which SQLite's own 0644 would pass as 0644).
@Suite struct DataFolderModeTests {
    /// Each regular file under `folder` (relative path) and its permission bits.
    private func modes(under folder: String) throws -> [String: Int] {
        var modes: [String: Int] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + relative)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            modes[relative] = (attributes[.posixPermissions] as? NSNumber)?.intValue
        }
        return modes
    }

    @Test func everyFileTheServerCreatesIsPrivate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tandem-modes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = folder
        // Nothing listens on port 9: events stay queued in webhooks.sqlite.
        configuration.webhookURLs = ["http://127.0.0.1:9/hook"]
        configuration.helloTimeout = .seconds(60)
        // No TANDEM_SECRET: the secret file is created too.
        let server = try SyncServer(configuration: configuration, environment: [:], logger: .discarding)
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let client = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        let token = server.tokens.mint(TokenClaims(sub: "alice", room: "lobby", role: .host, exp: server.tokens.currentTime + 600))
        try await client.send(.hello(Hello(token: token, client: "a1")))
        guard case .welcome? = await client.next() else { Issue.record("no welcome"); await server.shutdown(); return }
        try await client.send(.patch(seq: 1, ops: [.set(try JSONPointer(parsing: "/note"), "kept")]))
        #expect(await client.next() == .ack(seq: 1, rev: 1, duplicate: false))

        let expected = ["secret", "webhook-secret", "tandem.sqlite", "tandem.sqlite-wal", "tandem.sqlite-shm",
                        "webhooks.sqlite", "webhooks.sqlite-wal", "webhooks.sqlite-shm", "journal/LOCK"]
        try await eventually("the files of a running server", timeout: .seconds(30)) {
            let names = Set((try? modes(under: folder))?.keys.map { $0 } ?? [])
            return names.isSuperset(of: expected) && names.contains { $0.hasPrefix("journal/") && $0.hasSuffix(".log") }
        }
        let running = try modes(under: folder)
        for (file, mode) in running.sorted(by: { $0.key < $1.key }) {
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
        let folderMode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? NSNumber
        #expect(folderMode?.intValue == 0o700)

        await server.shutdown()
        for (file, mode) in try modes(under: folder) {
            #expect(mode == 0o600, "after shutdown \(file) has mode \(String(mode, radix: 8))")
        }
    }
}
