import TandemSynchronization

/// The address a server listens on, known once its port is bound (a configuration may ask for port 0):
/// what the server names itself by when no public URL is configured, rather than anything a request says.
final class ListeningAddress: Sendable {
    private let scheme: String
    private let host: String
    private let port: Locked<Int>

    /// An address on `host` with `scheme` (`http` or `https`), its port `port` until `bound(to:)` says otherwise.
    init(scheme: String, host: String, port: Int) {
        self.scheme = scheme
        self.host = host.contains(":") ? "[\(host)]" : host
        self.port = Locked(port)
    }

    /// Records the port the listener got.
    func bound(to port: Int) {
        self.port.withLock { $0 = port }
    }

    /// `host:port` (an IPv6 host in brackets).
    var authority: String { "\(host):\(port.withLock { $0 })" }

    /// `scheme://host:port`, without a trailing `/`.
    var baseURL: String { "\(scheme)://\(authority)" }
}
