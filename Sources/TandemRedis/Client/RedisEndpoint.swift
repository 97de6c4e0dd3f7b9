/// Where a Redis server listens: host and TCP port, parsed from `redis://HOST[:PORT]`.
package struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP literal.
    package var host: String
    /// The TCP port (6379 by default).
    package var port: Int

    /// An endpoint at `host:port`.
    package init(host: String, port: Int = 6379) {
        self.host = host
        self.port = port
    }

    /// Parses `redis://HOST[:PORT][/]`; IPv6 hosts are written in brackets (`redis://[::1]:6379`).
    /// - Throws: `RedisError.invalidURL` for another scheme, a missing host, a bad port, or parts this
    ///   client does not support (user, password, database number, TLS).
    package init(url: String) throws(RedisError) {
        guard url.hasPrefix("redis://") else {
            throw .invalidURL(url, reason: url.hasPrefix("rediss://") ? "TLS (rediss://) is not supported" : "the scheme must be redis://")
        }
        var rest = Substring(url.dropFirst("redis://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("@") else { throw .invalidURL(url, reason: "credentials are not supported") }
        guard !rest.contains("/") else { throw .invalidURL(url, reason: "a database number is not supported") }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidURL(url, reason: "unclosed [ in the host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL(url, reason: "text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw .invalidURL(url, reason: "the host is missing") }
        var port = 6379
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw .invalidURL(url, reason: "the port must be a number from 1 to 65535")
            }
            port = number
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 host.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}
