/// Why a TLS connection could not be set up or went wrong, in words that name the certificate problem.
///
/// Certificate and configuration errors will not heal by retrying: a session treats them like a refusal.
public enum TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The peer's certificate chain does not lead to a trusted root (unknown or self-signed CA).
    case untrustedCertificate(reason: String)
    /// The peer's certificate (or one in its chain) is outside its validity period.
    case certificateExpired(reason: String)
    /// The certificate is valid but for other names or addresses than `expected`.
    case hostnameMismatch(expected: String)
    /// Another verification failure (revoked, wrong purpose, malformed).
    case certificateRejected(reason: String)
    /// The handshake failed for a reason other than the certificate (no common protocol version or
    /// cipher, the peer does not speak TLS, the peer refused our certificate).
    case handshakeFailed(reason: String)
    /// The peer does not speak TLS: plain HTTP sent to a TLS port (`isServer`: this side is the server), or a
    /// plain server answering a client's hello.
    case notTLS(isServer: Bool)
    /// A certificate, key or CA file could not be loaded.
    case configuration(reason: String)
    /// The TLS stream broke after the handshake (a corrupted or forged record).
    case protocolFailure(reason: String)

    /// Whether retrying the same connection could help (only a broken stream may be a passing fault).
    public var isPermanent: Bool {
        switch self {
        case .protocolFailure: false
        default: true
        }
    }

    /// What went wrong and what to check.
    public var description: String {
        switch self {
        case .untrustedCertificate(let reason):
            "the server's certificate is not trusted (\(reason)); install a certificate from a public CA, or pass the CA that signed it"
        case .certificateExpired(let reason):
            "the server's certificate is expired or not yet valid (\(reason)); renew it, and check this device's clock"
        case .hostnameMismatch(let expected):
            "the server's certificate is not valid for \(expected); use the name the certificate was issued for, or reissue it with that name"
        case .certificateRejected(let reason): "the server's certificate was rejected: \(reason)"
        case .handshakeFailed(let reason): "the TLS handshake failed: \(reason)"
        case .notTLS(let isServer):
            isServer
                ? "the client sent plain text to a TLS port; use https:// or wss://"
                : "the server does not speak TLS on this port; use ws:// or http://, or the port where it serves TLS"
        case .configuration(let reason): "TLS configuration: \(reason)"
        case .protocolFailure(let reason): "the TLS connection broke: \(reason)"
        }
    }
}
