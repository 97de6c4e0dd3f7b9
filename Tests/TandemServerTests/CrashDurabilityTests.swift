import Foundation
import Testing
import TandemProtocol
import TandemSubprocess
import TandemTestSupport
import TandemWire
@testable import TandemServer

/// Runs the real `tandem` binary in a subprocess and kills it with SIGKILL mid-stream.
@Suite(.serialized) struct CrashDurabilityTests {
    struct CrashTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Starts `tandem serve` on a free port; returns the process and its sync URL.
    static func serve(data: String, secret: String = "crash-test", extra: [String] = []) throws -> (ChildProcess, String) {
        try ServeProcess.serve(data: data, secret: secret, extra: extra)
    }

    /// Runs blocking work (process start, waits) on its own thread, never on the cooperative pool.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await TandemTestSupport.offload(body)
    }

    static func offload(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                body()
                continuation.resume()
            }
        }
    }

    static func token(user: String) -> String {
        TokenVerifier(secret: Array("crash-test".utf8), hmac: { Digest.hmacSHA256(key: $0, message: $1) }, now: { Int64(Date().timeIntervalSince1970) })
            .mint(TokenClaims(sub: user, room: "durable", role: .host, exp: Int64(Date().timeIntervalSince1970) + 600))
    }

    @Test func everyAcknowledgedPatchSurvivesKillDashNine() async throws {
        let data = SyncServerTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }

        let (first, url) = try await Self.offload { try Self.serve(data: data) }
        let client = try await ProtocolClient.connect(url, loop: group.next())
        try await client.send(.hello(Hello(token: Self.token(user: "alice"), client: "a1")))
        guard case .welcome(let welcome)? = await client.next() else { first.terminate(); Issue.record("no welcome"); return }
        let total = 400
        Task {
            for seq in 1...total {
                try? await client.send(.patch(seq: Int64(seq), ops: [.set(try! JSONPointer(parsing: "/k\(seq)"), .number(Double(seq)))]))
            }
        }
        var acked: [Int64: Int64] = [:]
        while acked.count < 100, let message = await client.next() {
            if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
        }
        kill(first.processIdentifier, SIGKILL)
        await Self.offload { first.waitUntilExit() }
        // Acks that were already on the wire count too: they were sent after the commit.
        while let message = await client.next(timeout: .milliseconds(300)) {
            if case .ack(let seq, let rev, _, _) = message { acked[seq] = rev }
        }
        #expect(acked.count >= 100)

        let (second, secondURL) = try await Self.offload { try Self.serve(data: data) }
        defer { second.terminate() }
        let again = try await ProtocolClient.connect(secondURL, loop: group.next())
        try await again.send(.hello(Hello(token: Self.token(user: "alice"), client: "a1", resume: ResumePoint(epoch: welcome.epoch, rev: 0))))
        guard case .welcome(let restarted)? = await again.next() else { Issue.record("no welcome after restart"); return }
        #expect(restarted.epoch == welcome.epoch, "the epoch must survive a crash")
        guard case .replay(let events) = restarted.sync else { Issue.record("expected a replay"); return }
        var document = Document()
        for event in events { try document.apply(event.ops) }
        // Every acknowledged patch is there, at the rev its ack named.
        for (seq, rev) in acked {
            #expect(document.root["k\(seq)"] == .number(Double(seq)), "acked seq \(seq) lost")
            #expect(events.first { $0.seq == seq }?.rev == rev)
        }
        // The state is a prefix of the patch stream: patches 1...rev and nothing else.
        #expect(restarted.rev >= Int64(acked.values.max() ?? 0))
        #expect(document.root.objectValue?.count == Int(restarted.rev))
        #expect(restarted.lastSeq == restarted.rev)
    }
}
