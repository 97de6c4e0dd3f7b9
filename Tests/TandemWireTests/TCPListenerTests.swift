#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Testing
import TandemTestSupport
@testable import TandemWire

@Suite struct TCPListenerTests {
    @Test func portZeroBindsAnEphemeralPortThatAcceptsOnIPv4AndIPv6() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        for host in ["127.0.0.1", "::1"] {
            let (listener, accepted) = try listenLogging(host: host, group: group) { _ in RecordingHandler() }
            #expect(listener.port > 0)
            #expect(listener.localAddress.host == host)
            #expect(listener.localAddress.isIPv6 == (host == "::1"))
            let peer = try BlockingPeer(connectingTo: listener.localAddress)
            try await eventually("accepted on \(host)") { accepted.count == 1 }
            let connection = accepted.all[0].connection
            let (local, remote) = try await group.loops[0].submit { (try connection.localAddress(), try connection.remoteAddress()) }
            #expect(local.port == listener.port)
            #expect(remote.host == host)
            listener.close()
            _ = peer
        }
    }

    @Test func bindingAPortInUseFailsWithAddressInUse() throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let first = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
        defer { first.close() }
        #expect(throws: IOError.self) {
            _ = try TCPListener.bind(host: "127.0.0.1", port: first.port, group: group) { _ in RecordingHandler() }
        }
        do {
            _ = try TCPListener.bind(host: "127.0.0.1", port: first.port, group: group) { _ in RecordingHandler() }
        } catch let error as IOError {
            #expect(error.errno == EADDRINUSE)
            #expect(error.description.contains("bind to 127.0.0.1:\(first.port)"))
        }
    }

    @Test func acceptedConnectionsInheritTheConfiguredReceiveBuffer() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        func acceptedReceiveBuffer(_ size: Int32?) async throws -> Int32 {
            let (listener, accepted) = try listenLogging(group: group, configuration: .init(receiveBufferSize: size)) { _ in RecordingHandler() }
            defer { listener.close() }
            let peer = try BlockingPeer(connectingTo: listener.localAddress)
            try await eventually("accepted") { accepted.count == 1 }
            let fd = accepted.all[0].connection.fd
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            #expect(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, &length) == 0)
            _ = peer
            return value
        }
        // Linux reports twice the requested size (bookkeeping overhead); any kernel keeps it far below its default.
        let small = try await acceptedReceiveBuffer(16 * 1024)
        let tuned = try await acceptedReceiveBuffer(nil)
        #expect(small >= 16 * 1024 && small <= 32 * 1024)
        #expect(tuned > small)
    }

    @Test func connectionsBeyondTheLimitAreClosedAtOnce() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let accepted = HandlerLog<RecordingHandler>()
        let listener = try TCPListener.bind(
            host: "127.0.0.1", port: 0, group: group, configuration: .init(maxConnections: 2)
        ) { connection in
            let handler = RecordingHandler()
            accepted.add(connection, handler)
            return handler
        }
        let first = try BlockingPeer(connectingTo: listener.localAddress)
        let second = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("two accepted") { accepted.count == 2 }
        let third = try BlockingPeer(connectingTo: listener.localAddress, receiveTimeout: .seconds(2))
        // The third is accepted and closed by the server: it reads end of stream (or a reset), not a timeout.
        switch await third.receiveOffPool() {
        case .success(let bytes): #expect(bytes.isEmpty)
        case .failure(let error): #expect(error.isConnectionReset)
        }
        #expect(listener.rejectedConnectionCount == 1)
        #expect(listener.connectionCount == 2)
        #expect(accepted.count == 2)
        // Closing one frees a slot.
        let (connection, _) = accepted.all[0]
        connection.loop.execute { connection.abort() }
        try await eventually("slot freed") { listener.connectionCount == 1 }
        let fourth = try BlockingPeer(connectingTo: listener.localAddress)
        try await eventually("fourth accepted") { accepted.count == 3 }
        #expect(listener.rejectedConnectionCount == 1)
        _ = (first, second, fourth)
    }

    @Test func acceptedConnectionsAreSpreadAcrossTheLoops() async throws {
        let group = try EventLoopGroup(threads: 2)
        defer { group.shutdown() }
        let (listener, accepted) = try listenLogging(host: "127.0.0.1", group: group) { _ in RecordingHandler() }
        let peers = try (0..<6).map { _ in try BlockingPeer(connectingTo: listener.localAddress) }
        try await eventually("all accepted") { accepted.count == 6 }
        let perLoop = Dictionary(grouping: accepted.all, by: { $0.connection.loop.index }).mapValues(\.count)
        #expect(perLoop == [0: 3, 1: 3])
        _ = peers
    }

    @Test func aClosedListenerRefusesNewConnections() async throws {
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: 0, group: group) { _ in RecordingHandler() }
        let address = listener.localAddress
        listener.close()
        listener.close()
        try await eventually("listening socket closed") { (try? BlockingPeer(connectingTo: address)) == nil }
    }

    @Test func raisingTheDescriptorLimitReachesTheHardLimit() throws {
        let limit = try FileDescriptorLimit.raiseSoftLimitToHard()
        #expect(limit.soft == limit.hard)
        #expect(try FileDescriptorLimit.current() == limit)
        #expect(limit.description.contains("soft"))
    }
}
