/// A WebSocket close status code (RFC 6455 §7.4), including application codes 3000–4999.
package struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric code as sent on the wire.
    package var rawValue: UInt16

    /// Wraps a numeric code; any value is representable, see ``isValidOnWire``.
    package init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Wraps a numeric code given as an integer literal-friendly value.
    package init(_ rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection has been fulfilled.
    package static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint is going away (server shutting down, page navigating away).
    package static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the WebSocket protocol.
    package static let protocolError = WebSocketCloseCode(1002)
    /// 1003: the endpoint cannot accept this kind of data.
    package static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: reserved; stands for "no code present" and is never sent.
    package static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: reserved; stands for "closed without a close frame" and is never sent.
    package static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a text message (or close reason) was not valid UTF-8.
    package static let invalidFramePayloadData = WebSocketCloseCode(1007)
    /// 1008: the message violates the endpoint's policy.
    package static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a message exceeded the endpoint's size limit.
    package static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client expected an extension the server did not negotiate.
    package static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server hit an unexpected condition.
    package static let internalError = WebSocketCloseCode(1011)

    /// True for codes that may appear in a close frame: 1000–1003, 1007–1014 (IANA registered)
    /// and the library/application range 3000–4999. 1004–1006, 1015 and everything else in
    /// 0–2999 or above 4999 is a protocol error when received.
    package var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The code as a decimal number, e.g. `1002`.
    package var description: String { String(rawValue) }
}
