/// A Redis Cluster redirection: the error reply of a node that does not serve a key's slot.
package struct RedisRedirect: Sendable, Equatable {
    /// `MOVED`: the slot lives elsewhere for good (update the map); `ASK`: it is migrating, and this
    /// one command goes to the target after `ASKING`.
    package enum Kind: Sendable, Equatable { case moved, ask }

    /// Which of the two.

    package var kind: Kind
    /// The slot of the key the command named.
    package var slot: Int
    /// Where the slot is served.
    package var endpoint: RedisEndpoint

    /// A redirection of `slot` to `endpoint`.
    package init(kind: Kind, slot: Int, endpoint: RedisEndpoint) {
        self.kind = kind
        self.slot = slot
        self.endpoint = endpoint
    }

    /// The redirection `error` carries (`MOVED 3999 127.0.0.1:6381`, `ASK …`), or nil. An endpoint
    /// without a host (`:6381`, a node that does not know its own address) is reached at `fallbackHost`.
    package init?(_ error: RedisError, fallbackHost: String) {
        guard case .server(let code, let message) = error, code == "MOVED" || code == "ASK" else { return nil }
        let words = message.split(separator: " ")
        guard words.count == 3, let slot = Int(words[1]), slot >= 0, slot < RedisHashSlot.count,
              let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]), port > 0, port < 65_536 else {
            return nil
        }
        let host = String(words[2][..<colon])
        kind = code == "MOVED" ? .moved : .ask
        self.slot = slot
        endpoint = RedisEndpoint(host: host.isEmpty ? fallbackHost : host, port: port)
    }
}
