import Testing
import TandemWire

@Suite struct LoopbackPortTests {
    @Test("a free loopback port accepts nothing until a listener binds it, then accepts")
    func freePortAndAcceptingProbe() throws {
        let port = try LoopbackPort.free()
        #expect(port > 0 && port < 65_536)
        #expect(!LoopbackPort.isAccepting(port))
        let group = try EventLoopGroup(threads: 1)
        defer { group.shutdown() }
        let listener = try TCPListener.bind(host: "127.0.0.1", port: port, group: group) { _ in RecordingHandler() }
        #expect(listener.port == port)
        #expect(LoopbackPort.isAccepting(port))
        listener.close()
    }
}
