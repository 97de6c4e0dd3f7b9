/// The transport a session uses when the app names none, chosen here and nowhere else: the platform's own
/// WebSocket where it has one that works — `URLSessionWebSocketTask` on Apple platforms, with the system's
/// TLS, proxies and App Transport Security — and TandemWire's loop where the package links it (Linux, where
/// FoundationNetworking cannot open WebSockets; Package.swift's `wireTransportPlatforms`).
public enum PlatformTransport {
    /// A new transport of the platform's default kind.
    public static func make() -> any SyncTransport {
        #if TANDEM_WIRE_TRANSPORT
        WireTransport()
        #else
        URLSessionWebSocketTransport()
        #endif
    }
}
