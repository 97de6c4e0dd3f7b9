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

    /// Reads `http://HOST:PORT[/…]` or `ws://HOST:PORT[/path]` (the path of a ws:// URL is kept).
    init(_ text: String, option: String) throws(CommandLineError) {
        let lower = text.lowercased()
        let scheme = lower.hasPrefix("http://") ? "http://" : lower.hasPrefix("ws://") ? "ws://" : nil
        guard let scheme else {
            throw .invalidValue(option: option, value: text, expected: "an http:// or ws:// URL such as http://127.0.0.1:8080")
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { throw .invalidValue(option: option, value: text, expected: "a URL with a host, e.g. http://127.0.0.1:8080") }
        api = "http://\(authority)"
        sync = scheme == "ws://" && rest.count > authority.count ? text : "ws://\(authority)/v1/sync"
    }
}
