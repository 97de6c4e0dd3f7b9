import Foundation
import Testing
import TandemProtocol
import TandemSubprocess
import TandemTesting
@testable import TandemClient

/// The folder store of a session's state: round trip, the lock, formats it does not know, damage, and
/// a save cut short.
@Suite struct FileSyncPersistenceTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("tandem-state-\(UUID().uuidString)").path
    }

    private static let state = SyncSavedState(
        clientID: "a1", nextSeq: 8, epoch: "e1", rev: 41, confirmed: ["tabIndex": 2, "cart": ["items": [1, 2]]],
        pending: [PendingPatch(seq: 7, ops: [Fixtures.set("/tabIndex", 3)], stage: .inFlight),
                  PendingPatch(seq: nil, ops: [Fixtures.set("/note", "hi"), .remove(JSONPointer(tokens: ["cart"]))], stage: .unsent)])

    @Test func aSavedStateIsReadBackWhenTheFolderIsOpenedAgain() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try FileSyncPersistence(folder: path)
            #expect(store.saved == nil)
            try await store.save(Self.state)
        }
        let reopened = try FileSyncPersistence(folder: path)
        var expected = Self.state
        expected.pending[0].stage = .unsent  // the stage belongs to a connection
        #expect(reopened.saved == expected)
        let text = try String(contentsOfFile: "\(path)/state.json", encoding: .utf8)
        #expect(text.contains("\"format\":1"))
    }

    @Test func aSecondSessionCannotOpenAFolderInUse() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try FileSyncPersistence(folder: path)
        #expect(throws: SyncPersistenceError.locked(folder: path)) { _ = try FileSyncPersistence(folder: path) }
        _ = first
    }

    @Test func aClosedFolderOpensAtOnceWhileItsFirstOwnerStillExists() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try FileSyncPersistence(folder: path)
        try await first.save(Self.state)
        await first.close()
        let second = try FileSyncPersistence(folder: path)
        #expect(second.saved?.rev == 41)
        // The first owner can no longer write over the folder the second one holds.
        await #expect(throws: SyncPersistenceError.io(operation: "save after close", path: path, errno: EBADF)) { try await first.save(Self.state) }
        await first.close()
        _ = second
    }

    @Test func aLockHeldForAnInstantByAnotherProcessIsWaitedFor() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        // As a child being started holds a copy of the descriptor of a lock just released.
        let holder = try ChildProcess(executable: "/usr/bin/flock", arguments: ["-x", "\(path)/lock", "-c", "echo held; sleep 0.1"],
                                      standardOutput: .pipe)
        let line = holder.standardOutput?.availableData ?? Data()
        #expect(String(decoding: line, as: UTF8.self) == "held\n")
        let store = try FileSyncPersistence(folder: path)
        #expect(store.saved == nil)
        holder.waitUntilExit()
    }

    @Test func aStoppedSessionLetsGoOfItsFolder() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let persistence = try FileSyncPersistence(folder: path)
        let session = SyncSession(url: "ws://x/v1/sync", clientID: "a1", tokenProvider: { "t" }, transport: InMemoryTransport(), persistence: persistence)
        try await session.apply([Fixtures.set("/tabIndex", 4)])
        await session.stop()
        // `session` and `persistence` are still alive here: stopping is what released the folder.
        let reopened = try FileSyncPersistence(folder: path)
        #expect(reopened.saved?.pending.map(\.ops) == [[Fixtures.set("/tabIndex", 4)]])
        _ = (session, persistence)
    }

    @Test func aStateOfAnUnknownFormatIsRefusedAndLeftAsItIs() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let newer = #"{"format":2,"clientID":"a1","somethingNew":true}"#
        try newer.write(toFile: "\(path)/state.json", atomically: true, encoding: .utf8)
        let error = #expect(throws: SyncPersistenceError.self) { _ = try FileSyncPersistence(folder: path) }
        #expect(error == .unsupportedFormat(found: 2, folder: path))
        #expect(error?.description.contains("left as it is") == true)
        #expect(try String(contentsOfFile: "\(path)/state.json", encoding: .utf8) == newer)
        // The refusal released the lock: once the file is dealt with, the folder opens.
        try FileManager.default.removeItem(atPath: "\(path)/state.json")
        #expect(try FileSyncPersistence(folder: path).saved == nil)
    }

    @Test(arguments: ["not json", #"{"clientID":"a1"}"#, #"{"format":1,"clientID":7}"#, #"{"format":1e400}"#])
    func aDamagedStateIsUnreadable(contents: String) throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try contents.write(toFile: "\(path)/state.json", atomically: true, encoding: .utf8)
        let error = #expect(throws: SyncPersistenceError.self) { _ = try FileSyncPersistence(folder: path) }
        guard case .unreadable? = error else {
            if case .unsupportedFormat? = error { return }  // 1e400 is not a number this parser keeps
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func aSaveCutShortLeavesTheLastWholeState() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try FileSyncPersistence(folder: path)
            try await store.save(Self.state)
        }
        // A crash during the next save leaves its temporary file, half written.
        try #"{"format":1,"clientID":"a1","nextSeq":9,"ep"#.write(toFile: "\(path)/state.json.tmp", atomically: false, encoding: .utf8)
        let reopened = try FileSyncPersistence(folder: path)
        #expect(reopened.saved?.nextSeq == 8)
        #expect(!FileManager.default.fileExists(atPath: "\(path)/state.json.tmp"))
    }

    @Test func pendingPatchesAreCodableWithoutTheirStage() throws {
        let encoded = try JSONValueEncoder().encode(Self.state.pending)
        #expect(encoded == [["seq": 7, "ops": [["op": "set", "path": "/tabIndex", "value": 3]], "base": 0],
                            ["ops": [["op": "set", "path": "/note", "value": "hi"], ["op": "remove", "path": "/cart"]], "base": 0]])
        let decoded = try JSONValueDecoder().decode([PendingPatch].self, from: encoded)
        #expect(decoded.map(\.seq) == [7, nil] && decoded.allSatisfy { $0.stage == .unsent })
    }
}
