import Foundation

/// Constants and the key/accept computation of the RFC 6455 opening handshake (§1.3, §4).
package enum WebSocketHandshake {
    /// The GUID that RFC 6455 appends to the client's key before hashing.
    package static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The only protocol version spoken, sent in `Sec-WebSocket-Version`.
    package static let version = "13"

    /// `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key`: base64(SHA-1(key + GUID)).
    package static func acceptValue(forKey key: String) -> String {
        Data(Digest.sha1(Array((key + guid).utf8))).base64EncodedString()
    }

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64-encoded (24 characters).
    package static func makeKey(random: any RandomByteSource) -> String {
        Data(random.bytes(count: 16)).base64EncodedString()
    }

    /// True when `key` is the base64 encoding of exactly 16 bytes (§4.2.1 item 5).
    package static func isValidKey(_ key: String) -> Bool {
        guard key.utf8.count == 24, let decoded = Data(base64Encoded: key) else { return false }
        return decoded.count == 16
    }
}
