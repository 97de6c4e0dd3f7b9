#if canImport(CSSL)
import CSSL

/// The shared half of TLS for many connections: protocol floor (TLS 1.2), the TLS 1.2 cipher suites, trust
/// roots, and a server's certificate and key, loaded once. Engines made from it (`TLSEngine`) hold a reference.
///
/// Thread-safety: OpenSSL allows one context to serve connections on several threads once it is set up,
/// and nothing mutates it after `init`.
package final class TLSContext: @unchecked Sendable {
    let context: OpaquePointer
    /// The configuration it was made from.
    package let configuration: TLSConfiguration

    /// The only TLS 1.2 suites either side offers: ECDHE key exchange (forward secrecy: a stolen key does not
    /// decrypt recorded sessions) with an AEAD cipher (AES-GCM, ChaCha20-Poly1305; no CBC, which padding
    /// oracles attack), for ECDSA and RSA certificates. TLS 1.3 suites are all of that kind and stay OpenSSL's.
    package static let tls12CipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ]

    /// Loads `configuration`.
    /// - Throws: `TLSError.configuration` naming the file that could not be read or the key that does not
    ///   match its certificate.
    package init(_ configuration: TLSConfiguration) throws(TLSError) {
        guard let context = SSL_CTX_new(configuration.isServer ? TLS_server_method() : TLS_client_method()) else {
            throw .configuration(reason: "OpenSSL could not create a context (\(TLSContext.lastError()))")
        }
        self.context = context
        self.configuration = configuration
        _ = tandem_ssl_ctx_set_min_tls12(context)
        guard SSL_CTX_set_cipher_list(context, Self.tls12CipherSuites.joined(separator: ":")) == 1 else {
            throw .configuration(reason: "this OpenSSL offers none of the TLS 1.2 suites Tandem allows (\(TLSContext.lastError()))")
        }
        _ = tandem_ssl_ctx_set_modes(context)
        if let chain = configuration.certificateChain {
            guard SSL_CTX_use_certificate_chain_file(context, chain) == 1 else {
                throw .configuration(reason: "cannot load the certificate chain \(chain) (\(TLSContext.lastError()))")
            }
            guard let key = configuration.privateKey, SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
                throw .configuration(reason: "cannot load the private key \(configuration.privateKey ?? "(none given)") (\(TLSContext.lastError()))")
            }
            guard SSL_CTX_check_private_key(context) == 1 else {
                throw .configuration(reason: "the private key \(key) does not belong to the certificate \(chain)")
            }
        } else {
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            if configuration.trustsSystemRoots, SSL_CTX_set_default_verify_paths(context) != 1 {
                throw .configuration(reason: "cannot read the system's trust store (\(TLSContext.lastError()))")
            }
            for root in configuration.additionalTrustRoots where SSL_CTX_load_verify_locations(context, root, nil) != 1 {
                throw .configuration(reason: "cannot load the CA file \(root) (\(TLSContext.lastError()))")
            }
        }
    }

    deinit { SSL_CTX_free(context) }

    /// OpenSSL's newest queued error as text (and the queue cleared), for messages.
    static func lastError() -> String {
        var code: UInt = 0
        while case let next = ERR_get_error(), next != 0 { code = next }
        guard code != 0 else { return "no detail from OpenSSL" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif
