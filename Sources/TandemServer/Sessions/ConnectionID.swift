
/// Identifies one connection for the lifetime of the server, so a room can tell a stale
/// connection from the one that replaced it under the same client id.
public struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number, unique per server and increasing in the order connections are accepted (which
    /// of two connections of one client is the newer).
    public let rawValue: UInt64

    /// Wraps a number.
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// `#N`.
    public var description: String { "#\(rawValue)" }
}
