/// What one side of TLS needs: whom to trust and, for a server, who it is.
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM files of extra CAs a client trusts besides the system's trust store.
    public var additionalTrustRoots: [String]
    /// Whether the system's trust store is used (off for tests that trust only their own CA).
    public var trustsSystemRoots: Bool
    /// A server's PEM certificate chain (leaf first).
    public var certificateChain: String?
    /// A server's PEM private key.
    public var privateKey: String?
    /// The time certificates are checked against, unix seconds; `nil` is the current time. Injected by
    /// tests (an expired certificate without waiting for it to expire).
    public var verificationTime: Int64?

    /// A client configuration: the system's trust store plus `additionalTrustRoots`.
    public static func client(additionalTrustRoots: [String] = [], trustsSystemRoots: Bool = true) -> TLSConfiguration {
        TLSConfiguration(additionalTrustRoots: additionalTrustRoots, trustsSystemRoots: trustsSystemRoots)
    }

    /// A server configuration with its PEM certificate chain and private key.
    public static func server(certificateChain: String, privateKey: String) -> TLSConfiguration {
        TLSConfiguration(trustsSystemRoots: false, certificateChain: certificateChain, privateKey: privateKey)
    }

    /// Creates a configuration; prefer `client(...)` and `server(...)`.
    public init(additionalTrustRoots: [String] = [], trustsSystemRoots: Bool = true, certificateChain: String? = nil,
                privateKey: String? = nil, verificationTime: Int64? = nil) {
        self.additionalTrustRoots = additionalTrustRoots
        self.trustsSystemRoots = trustsSystemRoots
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.verificationTime = verificationTime
    }

    /// Whether this configures a server (it has a certificate).
    public var isServer: Bool { certificateChain != nil }
}
