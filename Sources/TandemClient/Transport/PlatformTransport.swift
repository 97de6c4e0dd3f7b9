/// The transport a session uses when the app names none, chosen here and nowhere else: the platform's own
/// WebSocket where it has one that works — `URLSessionWebSocketTask` on Apple platforms, with the system's
/// TLS, proxies and App Transport Security — and TandemWire's loop elsewhere (Linux, where
/// FoundationNetworking cannot open WebSockets).
public enum PlatformTransport {
    /// A new transport of the platform's default kind.
    public static func make() -> any SyncTransport {
        #if canImport(Darwin)
        URLSessionWebSocketTransport()
        #else
        WireTransport()
        #endif
    }
}
