/// The parts of a `ws://` URL a client needs: where to connect and what to put in the request.
struct WebSocketURL: Sendable, Equatable {
    /// The host to connect to, without IPv6 brackets.
    var host: String
    var port: Int
    /// The request target (path and query), at least `/`.
    var target: String
    /// The `Host` header value: the authority as written (brackets kept, port only when given).
    var hostHeader: String

    init(host: String, port: Int, target: String, hostHeader: String) {
        self.host = host
        self.port = port
        self.target = target
        self.hostHeader = hostHeader
    }

    /// Parses `ws://host[:port][/path][?query]` (or `http://…` with `scheme: "http"`); `host` may be a name, an
    /// IPv4 literal or a bracketed IPv6 literal. `wss://` and `https://` are refused (no TLS in Tandem's
    /// transport; terminate TLS in a proxy).
    init(_ text: String, scheme: String = "ws") throws(WebSocketClientError) {
        let secure = scheme == "ws" ? "wss" : scheme + "s"
        if text.lowercased().hasPrefix("\(secure)://") {
            throw .invalidURL("\(text): \(secure):// (TLS) is not supported; use \(scheme):// behind a TLS-terminating proxy")
        }
        guard text.lowercased().hasPrefix("\(scheme)://") else { throw .invalidURL("\(text): the scheme must be \(scheme)://") }
        let rest = text.dropFirst(scheme.count + 3)
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
        var port = 80
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
    }
}
