/// The two addresses of one Tandem server, derived from whichever the user typed: the sync WebSocket URL
/// (`ws://HOST:PORT/v1/sync`) and the HTTP API base (`http://HOST:PORT`).
struct ServerURL: Equatable {
    init(sync: String, api: String) {
        self.sync = sync
        self.api = api
    }

    /// The WebSocket URL `SyncSession` connects to.
    var sync: String
    /// The base URL of the HTTP API.
    var api: String

    /// Reads `http://` / `https://HOST:PORT[/…]` or `ws://` / `wss://HOST:PORT[/path]` (the path of a WebSocket
    /// URL is kept); a secure scheme makes both URLs secure.
    init(_ text: String, option: String) throws(CommandLineError) {
        let lower = text.lowercased()
        guard let scheme = ["http://", "https://", "ws://", "wss://"].first(where: { lower.hasPrefix($0) }) else {
            throw .invalidValue(option: option, value: text, expected: "an http://, https://, ws:// or wss:// URL such as http://127.0.0.1:8080")
        }
        let secure = scheme == "https://" || scheme == "wss://"
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { throw .invalidValue(option: option, value: text, expected: "a URL with a host, e.g. http://127.0.0.1:8080") }
        api = "\(secure ? "https" : "http")://\(authority)"
        let isWebSocket = scheme.hasPrefix("ws")
        sync = isWebSocket && rest.count > authority.count ? text : "\(secure ? "wss" : "ws")://\(authority)/v1/sync"
    }
}
