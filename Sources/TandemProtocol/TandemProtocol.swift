/// TandemProtocol: the pure model of sync protocol v1 — JSON values, JSON Pointer ops,
/// wire messages and token claims. No I/O; shared by the server and every client.
///
/// Decisions every peer relies on:
/// - JSON is parsed strictly (RFC 8259, plus: duplicate keys refused, depth ≤ 64) and written
///   deterministically (keys sorted by UTF-8 bytes, integers below 2^53 without fraction).
/// - `set` creates missing parent objects; inside arrays it only replaces existing elements.
///   `remove` of a missing path is a no-op; removing an array element or the root is
///   `invalid_path` (shifting elements would make repeated removes non-idempotent).
/// - A patch is applied atomically: one invalid op, too many ops or an oversized result
///   leaves the document unchanged.
/// - Messages ignore unknown fields; an unknown `type` is its own error (`unknown_type`).
/// - Tokens are HS256 JWTs only; the MAC is injected, so this module has no cryptography.
public enum TandemProtocol {
    /// The WebSocket subprotocol name that selects this protocol version.
    public static let subprotocol = "tandem.v1"
    /// The HTTP path of the sync endpoint.
    public static let syncPath = "/v1/sync"
}
