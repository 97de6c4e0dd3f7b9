#if !canImport(CSSL)
/// Where OpenSSL is not linked (Apple platforms, whose apps use `URLSessionWebSocketTransport`), TandemWire's
/// TLS types exist so the transport compiles, and creating a context fails with a message that says so.
package final class TLSContext: Sendable {
    /// The configuration it was made from.
    package let configuration: TLSConfiguration

    /// Always throws: this build of TandemWire has no TLS.
    package init(_ configuration: TLSConfiguration) throws(TLSError) {
        throw .configuration(reason: "TandemWire speaks TLS through OpenSSL, which this platform's build does not link; use the platform's WebSocket transport")
    }
}

/// Never created where OpenSSL is not linked (see `TLSContext`).
package final class TLSEngine {
    init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        throw .configuration(reason: "TandemWire has no TLS on this platform")
    }

    var isHandshakeComplete: Bool { false }
    var peerClosed: Bool { false }
    var hasOutbound: Bool { false }
    func start() throws(TLSError) {}
    func send(_ plaintext: [UInt8]) throws(TLSError) {}
    func close() {}
    func takeOutbound() -> [UInt8] { [] }
    func receive(
        _ ciphertext: UnsafeRawBufferPointer, scratch: UnsafeMutableRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Void
    ) throws(TLSError) {}
}
#endif
