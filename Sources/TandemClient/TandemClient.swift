import TandemKit
import TandemProtocol
import TandemWire

/// TandemClient: the library an app links to share its page state through a Tandem server.
public enum TandemClient {
    /// The protocol subprotocol this client speaks.
    public static let subprotocol = TandemProtocol.subprotocol
}
