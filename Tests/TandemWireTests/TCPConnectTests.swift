#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct TCPConnectTests {
    @Test func aClosedPortRefusesTheConnection() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let closed = try RefusingPort()
        defer { closed.close() }
        let port = closed.port
        do {
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: port, on: group.next()) { _ in RecordingHandler() }
            Issue.record("connect to a closed port succeeded")
        } catch let error as IOError {
            #expect(error.errno == ECONNREFUSED)
            #expect(error.description.contains("127.0.0.1:\(port)"))
        }
    }

    @Test func aListenerThatNeverAcceptsMakesConnectTimeOut() async throws {
        // A raw listening socket with the smallest backlog that nobody accepts from: once its queue is full the
        // kernel drops further SYNs and those connects stay in progress until our timeout.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { _ = close(fd) }
        let any = try SocketAddress(ipLiteral: "127.0.0.1", port: 0)
        _ = any.withSockAddr { bind(fd, $0, $1) }
        #expect(listen(fd, 0) == 0)
        let port = try Socket.localAddress(fd).port

        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        var timedOut = 0
        var connected: [TCPConnection] = []
        let clock = ContinuousClock()
        for _ in 0..<6 where timedOut == 0 {
            let start = clock.now
            do {
                connected.append(try await TCPConnection.connect(
                    host: "127.0.0.1", port: port, timeout: .milliseconds(150), on: group.next()) { _ in RecordingHandler() })
            } catch let error as IOError {
                #expect(error == .connectTimeout(host: "127.0.0.1", port: port))
                #expect(clock.now - start >= .milliseconds(150))
                // Far below the kernel's own SYN retries (about two minutes); generous for a loaded machine.
                #expect(clock.now - start < .seconds(30))
                timedOut += 1
            }
        }
        #expect(timedOut == 1)
        #expect(connected.count <= 3)
    }

    @Test func hostNamesAreResolvedAndTheHandlerIsInstalledOnTheLoop() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler(echo: true) }
        let factoryOnLoop = Mutex<Bool?>(nil)
        let handler = RecordingHandler()
        let connection = try await TCPConnection.connect(host: "localhost", port: listener.port, on: group.loops[0]) { connection in
            factoryOnLoop.withLock { $0 = connection.loop.inEventLoop && connection.isOpen }
            connection.write(Array("hello".utf8))  // writing from the factory is allowed
            return handler
        }
        #expect(factoryOnLoop.withLock { $0 } == true)
        try await eventually("echo") { handler.snapshot.received == Array("hello".utf8) }
        let remote = try await connection.loop.submit { try connection.remoteAddress() }
        #expect(remote.port == listener.port)
    }

    @Test func anInvalidPortFailsBeforeAnySocketIsMade() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        await #expect(throws: IOError.invalidPort(65536)) {
            _ = try await TCPConnection.connect(host: "127.0.0.1", port: 65536, on: group.next()) { _ in RecordingHandler() }
        }
    }
}
