import Foundation
import Testing
@testable import TandemServer

@Suite struct ServerSecretTests {
    private func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-secret-\(UUID().uuidString)").path
    }

    @Test func environmentWinsAndIsTrimmed() throws {
        let secret = try ServerSecret.load(environment: ["TANDEM_SECRET": "  s3cret\n"], dataDirectory: "/nonexistent")
        #expect(secret.key == Array("s3cret".utf8))
        #expect(secret.source == .environment)
    }

    @Test func emptyEnvironmentSecretIsRefused() {
        #expect(throws: ServerSecretError.empty("TANDEM_SECRET")) {
            try ServerSecret.load(environment: ["TANDEM_SECRET": " \n"], dataDirectory: "/nonexistent")
        }
    }

    @Test func createsAPrivateFileOnceAndReusesIt() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let created = try ServerSecret.load(environment: [:], dataDirectory: directory)
        let path = directory + "/secret"
        #expect(created.source == .created(path))
        #expect(created.key.count == 64)
        #expect(created.key.allSatisfy { Array("0123456789abcdef".utf8).contains($0) })
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let contents = try String(contentsOfFile: path, encoding: .utf8)
        #expect(contents.hasSuffix("\n") && contents.split(separator: "\n").count == 1)

        let again = try ServerSecret.load(environment: [:], dataDirectory: directory)
        #expect(again.key == created.key)
        #expect(again.source == .file(path))
    }

    @Test func twoCreatedSecretsDiffer() throws {
        let first = temporaryDirectory(), second = temporaryDirectory()
        defer { for directory in [first, second] { try? FileManager.default.removeItem(atPath: directory) } }
        #expect(try ServerSecret.load(environment: [:], dataDirectory: first).key != ServerSecret.load(environment: [:], dataDirectory: second).key)
    }

    @Test func unwritableDataFolderIsAClearError() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A regular file where the data folder should be.
        #expect(FileManager.default.createFile(atPath: directory, contents: Data()))
        #expect(throws: ServerSecretError.self) {
            try ServerSecret.load(environment: [:], dataDirectory: directory + "/data")
        }
    }
}
