import Testing
@testable import TandemWire

@Suite struct SocketAddressTests {
    @Test func parsesIPv4Literal() throws {
        let address = try SocketAddress(ipLiteral: "127.0.0.1", port: 8080)
        #expect(!address.isIPv6)
        #expect(address.host == "127.0.0.1")
        #expect(address.port == 8080)
        #expect(address.description == "127.0.0.1:8080")
    }

    @Test func parsesIPv6LiteralWithAndWithoutBrackets() throws {
        let plain = try SocketAddress(ipLiteral: "::1", port: 443)
        let bracketed = try SocketAddress(ipLiteral: "[::1]", port: 443)
        #expect(plain == bracketed)
        #expect(plain.isIPv6)
        #expect(plain.host == "::1")
        #expect(plain.description == "[::1]:443")
    }

    @Test func theClientNetworkIsAnIPv4AddressOrAnIPv6Slash64() throws {
        #expect(try SocketAddress(ipLiteral: "192.0.2.7", port: 1).clientNetwork == "192.0.2.7")
        #expect(try SocketAddress(ipLiteral: "::ffff:192.0.2.7", port: 1).clientNetwork == "192.0.2.7")
        let one = try SocketAddress(ipLiteral: "2001:db8:1:2:aaaa:bbbb:cccc:dddd", port: 1).clientNetwork
        let other = try SocketAddress(ipLiteral: "2001:db8:1:2::1", port: 1).clientNetwork
        #expect(one == "2001:db8:1:2::/64" && one == other)
        #expect(try SocketAddress(ipLiteral: "2001:db8:1:3::1", port: 1).clientNetwork == "2001:db8:1:3::/64")
        #expect(try SocketAddress(ipLiteral: "::1", port: 1).clientNetwork == "::/64")
    }

    @Test func rejectsNamesAndBadPorts() {
        #expect(throws: IOError.self) { try SocketAddress(ipLiteral: "localhost", port: 80) }
        #expect(throws: IOError.invalidPort(70000)) { try SocketAddress(ipLiteral: "127.0.0.1", port: 70000) }
        #expect(throws: IOError.invalidPort(-1)) { try SocketAddress(ipLiteral: "::1", port: -1) }
    }

    @Test func resolvesLocalhostToLoopback() async throws {
        let addresses = try await SocketAddress.resolve(host: "localhost", port: 9)
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.host == "127.0.0.1" || $0.host == "::1" })
        #expect(addresses.allSatisfy { $0.port == 9 })
    }

    @Test func literalResolutionSkipsTheResolver() async throws {
        let addresses = try await SocketAddress.resolve(host: "::1", port: 1)
        #expect(addresses == [try SocketAddress(ipLiteral: "::1", port: 1)])
    }
}
