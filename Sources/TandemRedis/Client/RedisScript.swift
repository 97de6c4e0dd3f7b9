import TandemWire

/// A Lua script with its SHA-1, for `EVALSHA` (the server caches scripts by digest, so the source is
/// sent only when the server does not know it yet).
package struct RedisScript: Sendable, Equatable {
    /// The Lua source.
    package let source: String
    /// The lowercase hex SHA-1 of `source`, as Redis names the cached script.
    package let sha1: String

    /// A script from its source.
    package init(_ source: String) {
        self.source = source
        self.sha1 = Hex.lowercase(Digest.sha1(Array(source.utf8)))
    }
}
