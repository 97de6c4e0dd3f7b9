#if canImport(CSSL)
import CSSL

/// TLS for one connection without a socket: ciphertext from the peer goes in through `receive`, plaintext
/// comes out; plaintext to send goes in through `send`, and `takeOutbound` hands over the ciphertext to
/// write. The handshake runs as bytes arrive, so it fits a non-blocking event loop: no thread of its own.
///
/// A client verifies the server's certificate chain against the context's trust roots and the name it
/// connects to (SAN DNS names, or IP addresses for an IP literal), and sends SNI for DNS names. Failures
/// are typed (`TLSError`) and name the certificate problem.
///
/// Not thread-safe: one owner (the connection's loop) calls it.
package final class TLSEngine {
    private let context: TLSContext
    private let ssl: OpaquePointer
    private let inbound: OpaquePointer
    private let outbound: OpaquePointer
    private let expectedName: String?
    /// Plaintext handed to `send` before the handshake completed, sent once it has.
    private var waiting: [UInt8] = []
    /// Whether the handshake completed.
    package private(set) var isHandshakeComplete = false
    /// Whether the peer closed its side with a TLS close_notify.
    package private(set) var peerClosed = false
    /// Whether any byte arrived yet (the first one tells a TLS peer from a plain one).
    private var receivedAny = false

    /// An engine for a client connecting to `serverName` (a DNS name or an IP literal), or for a server when
    /// the context has a certificate (`serverName` is then ignored).
    package init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        guard let ssl = SSL_new(context.context), let inbound = BIO_new(BIO_s_mem()), let outbound = BIO_new(BIO_s_mem()) else {
            throw .configuration(reason: "OpenSSL could not create a connection (\(TLSContext.lastError()))")
        }
        self.context = context
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
        SSL_set_bio(ssl, inbound, outbound)
        if context.configuration.isServer {
            expectedName = nil
            SSL_set_accept_state(ssl)
        } else {
            expectedName = serverName
            SSL_set_connect_state(ssl)
            if let serverName {
                let parameters = SSL_get0_param(ssl)
                if Self.isIPAddress(serverName) {
                    guard X509_VERIFY_PARAM_set1_ip_asc(parameters, serverName) == 1 else {
                        throw .configuration(reason: "\(serverName) is not an IP address OpenSSL can check")
                    }
                } else {
                    _ = tandem_ssl_set_server_name(ssl, serverName)
                    guard SSL_set1_host(ssl, serverName) == 1 else { throw .configuration(reason: "cannot check the name \(serverName)") }
                }
            }
            if let time = context.configuration.verificationTime {
                X509_VERIFY_PARAM_set_time(SSL_get0_param(ssl), time_t(time))
            }
        }
    }

    deinit { SSL_free(ssl) }

    /// Starts the handshake (a client's first flight lands in `takeOutbound`).
    package func start() throws(TLSError) {
        try advance()
    }

    /// Takes ciphertext from the peer and returns the plaintext it completes (possibly none).
    package func receive(_ bytes: [UInt8]) throws(TLSError) -> [UInt8] {
        var plaintext: [UInt8] = []
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 << 10, alignment: 16)
        defer { scratch.deallocate() }
        let failure = bytes.withUnsafeBytes { ciphertext -> TLSError? in
            do throws(TLSError) {
                try receive(ciphertext, scratch: scratch) { plaintext.append(contentsOf: $0) }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return plaintext
    }

    /// Takes ciphertext from the peer and hands each piece of plaintext it completes to `deliver`, decrypted
    /// into `scratch`. The ciphertext is buffered before anything is written to `scratch`, so the two may be
    /// the same memory (an event loop's read buffer).
    ///
    /// A peer whose first bytes are not a TLS record (plain HTTP to a TLS port, or a plain server answering a
    /// client's hello) fails with `TLSError.notTLS` before OpenSSL reads them.
    package func receive(
        _ ciphertext: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Void
    ) throws(TLSError) {
        if !ciphertext.isEmpty {
            if !receivedAny {
                receivedAny = true
                // 0x16 opens a handshake record, 0x15 an alert (a server refusing the hello).
                guard ciphertext[0] == 0x16 || ciphertext[0] == 0x15 else { throw .notTLS(isServer: context.configuration.isServer) }
            }
            let written = BIO_write(inbound, ciphertext.baseAddress, Int32(ciphertext.count))
            guard written == Int32(ciphertext.count) else {
                throw .protocolFailure(reason: "could not buffer \(ciphertext.count) received bytes")
            }
        }
        try advance()
        guard isHandshakeComplete, let base = scratch.baseAddress else { return }
        let capacity = Int32(clamping: scratch.count)
        while true {
            ERR_clear_error()
            let count = SSL_read(ssl, base, capacity)
            if count > 0 {
                deliver(UnsafeRawBufferPointer(start: base, count: Int(count)))
                continue
            }
            switch SSL_get_error(ssl, count) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
            case SSL_ERROR_ZERO_RETURN:
                peerClosed = true
                return
            default: throw .protocolFailure(reason: TLSContext.lastError())
            }
        }
    }

    /// Whether anything is waiting in `takeOutbound`.
    package var hasOutbound: Bool { BIO_ctrl_pending(outbound) > 0 }

    /// Encrypts `plaintext` for the peer (held until the handshake completes).
    package func send(_ plaintext: [UInt8]) throws(TLSError) {
        guard isHandshakeComplete else {
            waiting.append(contentsOf: plaintext)
            return
        }
        try write(plaintext)
    }

    /// Sends a close_notify (the ciphertext lands in `takeOutbound`).
    package func close() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    /// The ciphertext to write to the socket now.
    package func takeOutbound() -> [UInt8] {
        let pending = BIO_ctrl_pending(outbound)
        guard pending > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(pending))
        let read = bytes.withUnsafeMutableBytes { BIO_read(outbound, $0.baseAddress, Int32($0.count)) }
        return Array(bytes.prefix(Int(max(0, read))))
    }

    private func write(_ plaintext: [UInt8]) throws(TLSError) {
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            let written = plaintext[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            guard written > 0 else { throw .protocolFailure(reason: TLSContext.lastError()) }
            offset += Int(written)
        }
    }

    /// Runs the handshake as far as the bytes received allow.
    private func advance() throws(TLSError) {
        guard !isHandshakeComplete else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            let held = waiting
            waiting = []
            if !held.isEmpty { try write(held) }
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
        default: throw failure()
        }
    }

    /// The typed error for a failed handshake: the certificate problem when verification failed.
    private func failure() -> TLSError {
        let detail = TLSContext.lastError()
        let verdict = Int32(SSL_get_verify_result(ssl))
        guard !context.configuration.isServer, verdict != X509_V_OK else { return .handshakeFailed(reason: detail) }
        let reason = String(cString: X509_verify_cert_error_string(Int(verdict)))
        switch verdict {
        case X509_V_ERR_CERT_HAS_EXPIRED, X509_V_ERR_CERT_NOT_YET_VALID: return .certificateExpired(reason: reason)
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: return .hostnameMismatch(expected: expectedName ?? "this server")
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return .untrustedCertificate(reason: reason)
        default: return .certificateRejected(reason: reason)
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        if bytes.contains(UInt8(ascii: ":")) { return true }
        return !bytes.isEmpty && bytes.allSatisfy { $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }
}
#endif
