/// How a listener serves TLS: the context with its certificate, and what a client that sends plain text
/// instead of a TLS hello is told before the connection closes.
public struct TLSServerSettings: Sendable {
    /// The server context (certificate chain and key).
    public var context: TLSContext
    /// Bytes written unencrypted to a plain-text client, e.g. an HTTP 400 naming `https://`; nil closes at once.
    public var plaintextReply: [UInt8]?

    /// Serves `context`, answering plain-text clients with `plaintextReply`.
    public init(context: TLSContext, plaintextReply: [UInt8]? = nil) {
        self.context = context
        self.plaintextReply = plaintextReply
    }
}
