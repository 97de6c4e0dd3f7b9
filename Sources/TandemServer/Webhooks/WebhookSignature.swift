import TandemProtocol
import TandemWire

/// The `Tandem-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, the scheme
/// Stripe uses. The timestamp is inside the signed bytes, so a receiver that refuses an old `t` also
/// refuses a replayed request; each delivery attempt is signed afresh.
package enum WebhookSignature {
    /// The header's name.
    package static let header = "Tandem-Signature"

    /// The header value for `body` sent at `timestamp` (unix seconds) under `secret`.
    package static func sign(body: [UInt8], timestamp: Int64, secret: [UInt8]) -> String {
        "t=\(timestamp),v1=\(Hex.lowercase(tag(body: body, timestamp: timestamp, secret: secret)))"
    }

    /// Whether `value` is a valid signature of `body` under `secret` made at most `tolerance` seconds
    /// from `now` (unix seconds), compared in constant time. What a receiver does.
    package static func verify(_ value: String, body: [UInt8], secret: [UInt8], now: Int64, tolerance: Int64 = 300) -> Bool {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in value.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance else { return false }
        let expected = Array(Hex.lowercase(tag(body: body, timestamp: timestamp, secret: secret)).utf8)
        return signatures.contains { ConstantTime.equals(Array($0.utf8), expected) }
    }

    private static func tag(body: [UInt8], timestamp: Int64, secret: [UInt8]) -> [UInt8] {
        Digest.hmacSHA256(key: secret, message: Array("\(timestamp).".utf8) + body)
    }
}
