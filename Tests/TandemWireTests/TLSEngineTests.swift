#if canImport(CSSL)
import CSSL
#endif
import Foundation
import Testing
import TandemTestSupport
@testable import TandemWire

/// The TLS engine without sockets: a client and a server engine hand each other their bytes. Certificates
/// come from a CA made for the run.
@Suite struct TLSEngineTests {
    private func certificates() throws -> TestCertificates { try TestCertificates.forTests() }

    /// Moves bytes both ways until neither side has anything to say; returns what each side read.
    @discardableResult
    private func pump(_ client: TLSEngine, _ server: TLSEngine) throws(TLSError) -> (client: [UInt8], server: [UInt8]) {
        var read: (client: [UInt8], server: [UInt8]) = ([], [])
        for _ in 0..<20 {
            let toServer = client.takeOutbound()
            read.server += try server.receive(toServer)
            let toClient = server.takeOutbound()
            read.client += try client.receive(toClient)
            if toServer.isEmpty && toClient.isEmpty { break }
        }
        return read
    }

    private func pair(trust: [String], serverName: String, chain: String? = nil, key: String? = nil,
                      at time: Int64? = nil) throws -> (TLSEngine, TLSEngine) {
        let certificates = try certificates()
        var clientConfiguration = TLSConfiguration.client(additionalTrustRoots: trust, trustsSystemRoots: false)
        clientConfiguration.verificationTime = time
        let client = try TLSEngine(context: TLSContext(clientConfiguration), serverName: serverName)
        let server = try TLSEngine(context: TLSContext(.server(certificateChain: chain ?? certificates.serverChain,
                                                                privateKey: key ?? certificates.serverKey)))
        try client.start()
        return (client, server)
    }

    @Test(arguments: ["localhost", "127.0.0.1"])
    func aVerifiedHandshakeCarriesDataBothWays(serverName: String) throws {
        let (client, server) = try pair(trust: [try certificates().caFile], serverName: serverName)
        try client.send(Array("hello over TLS".utf8)) // before the handshake: held, then sent
        var read = try pump(client, server)
        #expect(client.isHandshakeComplete && server.isHandshakeComplete)
        #expect(read.server == Array("hello over TLS".utf8))
        let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0) }
        try server.send(big)
        read = try pump(client, server)
        #expect(read.client == big)
        client.close()
        try pump(client, server)
        #expect(server.peerClosed)
    }

    @Test func aServerSignedByAnotherCAIsUntrusted() throws {
        let (client, server) = try pair(trust: [try certificates().otherCAFile], serverName: "localhost")
        let error = #expect(throws: TLSError.self) { try pump(client, server) }
        guard case .untrustedCertificate(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("issuer"), "\(reason)")
        #expect(error?.description.contains("not trusted") == true)
        #expect(error?.isPermanent == true)
    }

    @Test func aSelfSignedCertificateIsUntrusted() throws {
        let certificates = try certificates()
        let (client, server) = try pair(trust: [certificates.caFile], serverName: "localhost",
                                        chain: certificates.selfSignedChain, key: certificates.selfSignedKey)
        let error = #expect(throws: TLSError.self) { try pump(client, server) }
        guard case .untrustedCertificate(let reason)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("self-signed") || reason.contains("self signed"), "\(reason)")
    }

    @Test func anExpiredCertificateIsNamedAsSuch() throws {
        let twoDaysOn = Int64(Date().timeIntervalSince1970) + 2 * 86_400
        let (client, server) = try pair(trust: [try certificates().caFile], serverName: "localhost", at: twoDaysOn)
        let error = #expect(throws: TLSError.self) { try pump(client, server) }
        guard case .certificateExpired? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.description.contains("expired") == true)
    }

    @Test(arguments: ["example.com", "127.0.0.2"])
    func aCertificateForOtherNamesIsAHostnameMismatch(serverName: String) throws {
        let (client, server) = try pair(trust: [try certificates().caFile], serverName: serverName)
        let error = #expect(throws: TLSError.self) { try pump(client, server) }
        #expect(error == .hostnameMismatch(expected: serverName))
        #expect(error?.description.contains("not valid for \(serverName)") == true)
    }

    @Test func plainTextToATLSServerIsNamedAsSuch() throws {
        let certificates = try certificates()
        let server = try TLSEngine(context: TLSContext(.server(certificateChain: certificates.serverChain, privateKey: certificates.serverKey)))
        let error = #expect(throws: TLSError.self) { _ = try server.receive(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
        #expect(error == .notTLS(isServer: true))
        #expect(error?.description.contains("https://") == true)
    }

    @Test func aPlainServerAnsweringTheHelloIsNamedAsSuch() throws {
        let client = try TLSEngine(context: TLSContext(.client(trustsSystemRoots: false)), serverName: "localhost")
        try client.start()
        #expect(!client.takeOutbound().isEmpty)
        let error = #expect(throws: TLSError.self) { _ = try client.receive(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)) }
        #expect(error == .notTLS(isServer: false))
        #expect(error?.description.contains("ws://") == true)
    }

    @Test func unreadableFilesAreConfigurationErrorsNamingTheFile() throws {
        let certificates = try certificates()
        #expect(throws: TLSError.self) { try TLSContext(.client(additionalTrustRoots: ["/nonexistent/ca.pem"])) }
        let mismatched = #expect(throws: TLSError.self) {
            try TLSContext(.server(certificateChain: certificates.serverChain, privateKey: certificates.selfSignedKey))
        }
        // OpenSSL refuses a key that does not match the certificate as it loads it.
        #expect(mismatched?.description.contains(certificates.selfSignedKey) == true && mismatched?.description.contains("mismatch") == true,
                "\(String(describing: mismatched))")
        let missing = #expect(throws: TLSError.self) { try TLSContext(.server(certificateChain: "/nonexistent/chain.pem", privateKey: certificates.serverKey)) }
        #expect(missing?.description.contains("/nonexistent/chain.pem") == true)
    }

    @Test func aCorruptedRecordAfterTheHandshakeIsAProtocolFailure() throws {
        let (client, server) = try pair(trust: [try certificates().caFile], serverName: "localhost")
        try pump(client, server)
        try client.send(Array("secret".utf8))
        var record = client.takeOutbound()
        record[record.count - 1] ^= 0xFF
        let error = #expect(throws: TLSError.self) { _ = try server.receive(record) }
        guard case .protocolFailure? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(error?.isPermanent == false)
    }
}

#if canImport(CSSL)
/// The TLS 1.2 suites a client agrees to, against a server whose context is set past Tandem's own list.
extension TLSEngineTests {
    /// A client and a server engine where the server (RSA certificate, which can also do the key exchange of the
    /// suites without forward secrecy) speaks TLS 1.2 at most and offers only `suites`, set on its context
    /// directly, past Tandem's own list.
    private func pair(serverOffering suites: String) throws -> (TLSEngine, TLSEngine) {
        let certificates = try certificates()
        let client = try TLSEngine(context: TLSContext(.client(additionalTrustRoots: [certificates.caFile], trustsSystemRoots: false)),
                                   serverName: "localhost")
        let context = try TLSContext(.server(certificateChain: certificates.rsaServerChain, privateKey: certificates.rsaServerKey))
        #expect(SSL_CTX_set_cipher_list(context.context, suites) == 1)
        #expect(SSL_CTX_ctrl(context.context, SSL_CTRL_SET_MAX_PROTO_VERSION, Int(TLS1_2_VERSION), nil) == 1)
        let server = try TLSEngine(context: context)
        try client.start()
        return (client, server)
    }

    /// Without forward secrecy (RSA key exchange), or with CBC: the client agrees to none of these.
    @Test(arguments: ["AES128-GCM-SHA256", "AES256-SHA", "AES128-SHA256", "ECDHE-RSA-AES128-SHA256", "ECDHE-RSA-AES256-SHA"])
    func aClientRefusesTLS12SuitesWithoutForwardSecrecyOrAEAD(suite: String) throws {
        let (client, server) = try pair(serverOffering: suite)
        #expect(throws: TLSError.self) { try pump(client, server) }
        #expect(!client.isHandshakeComplete)
    }

    @Test(arguments: TLSContext.tls12CipherSuites.filter { $0.hasPrefix("ECDHE-RSA-") })
    func aClientAgreesToForwardSecretAEADSuitesOverTLS12(suite: String) throws {
        let (client, server) = try pair(serverOffering: suite)
        try pump(client, server)
        #expect(client.isHandshakeComplete && server.isHandshakeComplete)
    }
}
#endif
