import TandemWire

/// One file of the browser page, built into the binary: its URL path, media type, bytes and a
/// strong validator derived from the bytes (so a new build never serves a stale cached copy).
struct PageAsset: Sendable {
    let path: String
    let contentType: String
    let body: [UInt8]
    /// A quoted strong ETag: the first 16 hex digits of the body's SHA-256.
    let entityTag: String

    init(path: String, contentType: String, body: [UInt8]) {
        self.path = path
        self.contentType = contentType
        self.body = body
        entityTag = "\"" + Hex.lowercase(Digest.sha256(body).prefix(8)) + "\""
    }

    /// The body as text (every asset is UTF-8).
    var text: String { String(decoding: body, as: UTF8.self) }
}
