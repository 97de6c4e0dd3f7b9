import TandemProtocol
import TandemWire

/// TandemServer: rooms, the per-room sequencer, tokens, presence, durable storage, limits,
/// metrics and the HTTP endpoints of `tandem serve`.
public enum TandemServer {
    /// The default TCP port of `tandem serve`.
    public static let defaultPort = 8080
}
