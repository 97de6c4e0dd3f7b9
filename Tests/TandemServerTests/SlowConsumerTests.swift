import Foundation
import Testing
import TandemTestSupport
import TandemProtocol
import TandemWire
@testable import TandemServer

/// A participant that completes the upgrade and sends `hello`, then never reads another byte: its
/// kernel receive buffer is made tiny, so what the server sends piles up in the server's queue.
private final class StalledPeer: Sendable {
    private let fd: Int32

    init(port: Int, hello: ClientMessage) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw IOError.system(operation: "socket", errno: errno) }
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw IOError.system(operation: "connect", errno: errno) }
        // The server keeps bytes after the upgrade request, so request and hello go out together.
        var bytes = WebSocketClientHandshake(host: "127.0.0.1:\(port)", path: "/v1/sync", subprotocols: [TandemProtocol.subprotocol]).requestBytes
        WebSocketFrameEncoder().encodeText(String(decoding: hello.encoded(), as: UTF8.self), masked: true, into: &bytes)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw IOError.system(operation: "write", errno: errno) }
    }

    deinit { close(fd) }

    /// Reads what the server had sent until the connection ends (end of input or reset); returns
    /// false if it is still open after `timeout`. Blocking reads run on their own thread.
    func drainUntilClosed(timeout seconds: Int) async -> Bool {
        let fd = fd
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                var limit = timeval(tv_sec: seconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if count > 0 { continue }
                    continuation.resume(returning: count == 0 || errno == ECONNRESET)
                    return
                }
            }.start()
        }
    }
}

extension SyncServerTests {
    @Test func aSlowConsumerIsDroppedWhileOthersGetEverythingInOrderAndItResumesWithTheMissedPatches() async throws {
        let queueLimit = 512 * 1024
        let (server, directory) = try startServer {
            $0.rateLimit = 0
            $0.sendQueueLimitBytes = queueLimit
            // Megabytes pass through the room before the kernel buffers fill: keep them off the disk.
            $0.inMemoryStorage = true
        }
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown(); try? FileManager.default.removeItem(atPath: directory) }
        let alice = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await alice.send(.hello(Hello(token: token(server, user: "alice"), client: "a1")))
        guard case .welcome(let welcome)? = await alice.next() else { Issue.record("no welcome"); return }
        for seq in 1...3 {
            try await alice.send(.patch(seq: Int64(seq), ops: [.set(try JSONPointer(parsing: "/n"), .number(Double(seq)))]))
            #expect(await alice.next() == .ack(seq: Int64(seq), rev: Int64(seq), duplicate: false))
        }
        let bob = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await bob.send(.hello(Hello(token: token(server, user: "bob"), client: "b1")))
        guard case .welcome? = await bob.next() else { Issue.record("no welcome for bob"); return }
        #expect(await alice.next() == .join(Participant(user: "bob", client: "b1", role: .host)))
        // Carol joins at rev 3 and then stops reading.
        let carol = try StalledPeer(port: server.port, hello: .hello(Hello(token: token(server, user: "carol"), client: "c1")))
        let carolJoined = ServerMessage.join(Participant(user: "carol", client: "c1", role: .host))
        #expect(await alice.next(timeout: .seconds(30)) == carolJoined)
        #expect(await bob.next(timeout: .seconds(30)) == carolJoined)

        // Alice writes 8 KiB patches in batches of 32 (≈ 260 KiB, half the queue limit, so a reader
        // never comes near it) until the server has dropped Carol, then two more batches.
        let big = JSONValue.string(String(repeating: "x", count: 8 * 1024))
        let pointer = try JSONPointer(parsing: "/big")
        var sent: Int64 = 3
        var batchesAfterDrop = 0
        var aliceRevs: [Int64] = []
        var bobEvents: [PatchEvent] = []
        while batchesAfterDrop < 2, sent < 3 + 4_000 {
            if server.metrics.closes.value("4002") > 0 { batchesAfterDrop += 1 }
            for _ in 0..<32 {
                sent += 1
                try await alice.send(.patch(seq: sent, ops: [.set(pointer, big)]))
            }
            while Int64(aliceRevs.count) < sent - 3, let message = await alice.next(timeout: .seconds(30)) {
                switch message {
                case .ack(_, let rev, _, _): aliceRevs.append(rev)
                case .join, .leave, .presence: continue
                default: Issue.record("alice got \(message)")
                }
            }
            while Int64(bobEvents.count) < sent - 3, let message = await bob.next(timeout: .seconds(30)) {
                switch message {
                case .patch(let event): bobEvents.append(event)
                case .join, .leave, .presence: continue
                default: Issue.record("bob got \(message)")
                }
            }
            guard Int64(aliceRevs.count) == sent - 3, Int64(bobEvents.count) == sent - 3 else { break }
        }
        #expect(batchesAfterDrop == 2, "sent \(sent - 3) patches without the slow consumer being dropped")
        #expect(server.metrics.closes.value("4002") == 1, "exactly one connection (the stalled one) closes as a slow consumer")
        #expect(aliceRevs == Array(4...sent), "the author's acks have a gap or a reordering")
        #expect(bobEvents.map(\.rev) == Array(4...sent), "a fast reader lost or reordered patches")
        // A close frame cannot pass a full queue: the server drops the connection and reports 4002
        // (SPEC §4: send queue overflow) in its metrics and log; the client sees the stream end.
        #expect(await carol.drainUntilClosed(timeout: 30), "the server did not close the slow connection")

        // Carol comes back and resumes from the last rev she had: she gets exactly what she missed.
        let carolAgain = try await ProtocolClient.connect(server.syncURL, loop: group.next())
        try await carolAgain.send(.hello(Hello(
            token: token(server, user: "carol"), client: "c1", resume: ResumePoint(epoch: welcome.epoch, rev: 3))))
        guard case .welcome(let resumed)? = await carolAgain.next(timeout: .seconds(30)) else {
            Issue.record("no welcome on resume after \(sent - 3) patches; close \(String(describing: await carolAgain.closeCode())), 4002s: \(server.metrics.closes.value("4002"))"); return
        }
        #expect(resumed.rev == sent)
        #expect(resumed.sync == .replay(bobEvents), "the resume must replay exactly the missed patches, in order")
        await server.shutdown()
    }
}
