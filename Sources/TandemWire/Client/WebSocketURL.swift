/// The parts of a `ws://` or `wss://` URL a client needs: where to connect, whether over TLS, and what to put
/// in the request.
struct WebSocketURL: Sendable, Equatable {
    /// The host to connect to, without IPv6 brackets (also the name the server's certificate must carry).
    var host: String
    var port: Int
    /// The request target (path and query), at least `/`.
    var target: String
    /// The `Host` header value: the authority as written (brackets kept, port only when given).
    var hostHeader: String
    /// Whether the scheme asks for TLS (`wss://`, `https://`).
    var isSecure: Bool

    init(host: String, port: Int, target: String, hostHeader: String, isSecure: Bool = false) {
        self.host = host
        self.port = port
        self.target = target
        self.hostHeader = hostHeader
        self.isSecure = isSecure
    }

    /// Parses `ws://` / `wss://host[:port][/path][?query]` (or `http://` / `https://…` with `scheme: "http"`);
    /// `host` may be a name, an IPv4 literal or a bracketed IPv6 literal. The default port is 80, or 443 over TLS.
    init(_ text: String, scheme: String = "ws") throws(WebSocketClientError) {
        let secureScheme = scheme == "ws" ? "wss" : scheme + "s"
        let lowered = text.lowercased()
        let isSecure = lowered.hasPrefix("\(secureScheme)://")
        guard isSecure || lowered.hasPrefix("\(scheme)://") else {
            throw .invalidURL("\(text): the scheme must be \(scheme):// or \(secureScheme)://")
        }
        let schemeLength = (isSecure ? secureScheme : scheme).count + 3
        let rest = text.dropFirst(schemeLength)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if let fragment = target.firstIndex(of: "#") { target = String(target[..<fragment]) }
        if target.isEmpty || target.first == "?" { target = "/" + target }
        guard !authority.isEmpty, !authority.contains("@") else {
            throw .invalidURL("\(text): expected \(scheme)://host[:port]/path")
        }
        var host: Substring
        var portText: Substring?
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("\(text): unterminated [IPv6] literal") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw .invalidURL("\(text): unexpected text after ]") }
                portText = after.dropFirst()
            }
        } else {
            guard authority.filter({ $0 == ":" }).count <= 1 else {
                throw .invalidURL("\(text): write IPv6 addresses in brackets, e.g. \(scheme)://[::1]:8080/")
            }
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
        }
        guard !host.isEmpty else { throw .invalidURL("\(text): the host is empty") }
        var port = isSecure ? 443 : 80
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .invalidURL("\(text): the port must be a number from 1 to 65535")
            }
            port = value
        }
        self.host = String(host)
        self.port = port
        self.target = target
        hostHeader = String(authority)
        self.isSecure = isSecure
    }

    /// The client context to connect with: none for a plain URL, `given` or one on the system's trust store
    /// for a secure one.
    func tlsContext(given: TLSContext?) throws(TLSError) -> TLSContext? {
        guard isSecure else { return nil }
        if let given { return given }
        return try TLSContext(.client())
    }
}
