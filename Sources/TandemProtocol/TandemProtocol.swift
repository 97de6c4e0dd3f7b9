/// TandemProtocol: the pure model of sync protocol v1 — JSON values, JSON Pointer ops,
/// wire messages and token claims. No I/O; shared by the server and every client.
public enum TandemProtocol {
    /// The WebSocket subprotocol name that selects this protocol version.
    public static let subprotocol = "tandem.v1"
    /// The HTTP path of the sync endpoint.
    public static let syncPath = "/v1/sync"
}
