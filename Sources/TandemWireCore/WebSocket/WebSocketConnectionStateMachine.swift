/// The protocol side of one WebSocket connection, bytes in and events out, for either role.
///
/// Feed it what the socket delivers with `receive(_:)`; it returns the peer's messages and
/// the frames the protocol obliges us to send (pong for ping, the close reply, the close frame
/// that fails the connection), and says when to close the socket. Sending goes through
/// ``sendText(_:into:)`` and friends, which refuse data once a close frame has been sent.
///
/// A value type with no locks: the owner (one connection's I/O context) is its single writer.
package struct WebSocketConnectionStateMachine: Sendable {
    /// Where the close handshake stands.
    package enum State: Sendable, Equatable {
        /// Messages flow both ways.
        case open
        /// We sent a close frame and wait for the peer's; received messages are still delivered.
        case closeSent
        /// The handshake finished or the connection was failed; the socket should be closed.
        case closed
    }

    /// Which end of the connection this is.
    package let role: WebSocketRole
    /// Where the close handshake stands.
    package private(set) var state: State = .open

    private var decoder: WebSocketFrameDecoder
    private var assembler: WebSocketMessageAssembler
    private let encoder: WebSocketFrameEncoder

    /// Creates the state machine of a freshly upgraded connection. Data messages above
    /// `maxMessageSize` bytes fail the connection with 1009. With `textAsBytes`, text messages are
    /// delivered as ``WebSocketEvent/textBytes(_:)`` (validated UTF-8, no `String` built).
    package init(
        role: WebSocketRole, maxMessageSize: Int = WebSocketFrameDecoder.defaultMaxMessageSize, textAsBytes: Bool = false,
        encoder: WebSocketFrameEncoder = WebSocketFrameEncoder()
    ) {
        self.role = role
        self.assembler = WebSocketMessageAssembler(textAsBytes: textAsBytes)
        self.decoder = WebSocketFrameDecoder(role: role, maxMessageSize: maxMessageSize)
        self.encoder = encoder
    }

    /// True while data messages may be sent.
    package var canSendData: Bool { state == .open }

    /// Consumes bytes received from the peer (any split), returning events and required writes.
    /// Bytes arriving after the connection closed are ignored.
    package mutating func receive(_ bytes: [UInt8]) -> WebSocketReceiveResult {
        bytes.withUnsafeBytes { receive($0) }
    }

    /// Consumes bytes received from the peer (any split), returning events and required writes.
    /// Bytes arriving after the connection closed are ignored.
    package mutating func receive(_ bytes: UnsafeRawBufferPointer) -> WebSocketReceiveResult {
        var result = WebSocketReceiveResult()
        guard state != .closed else { return result }
        decoder.append(bytes)
        while state != .closed {
            let event: WebSocketEvent?
            do {
                guard let frame = try decoder.nextFrame() else { break }
                event = try assembler.process(frame)
            } catch {
                fail(with: error, into: &result)
                break
            }
            guard let event else { continue }
            result.events.append(event)
            switch event {
            case .ping(let payload) where state == .open:
                encoder.encodePong(payload, masked: role.masksOutgoingFrames, into: &result.bytesToWrite)
            case .close(let code, _):
                if state == .open {
                    // Echo the peer's code (§5.5.1); an empty close is answered with an empty one.
                    encoder.encodeClose(code: code, masked: role.masksOutgoingFrames, into: &result.bytesToWrite)
                }
                state = .closed
                result.closeSocket = true
            default:
                break
            }
        }
        return result
    }

    /// Appends a text message frame to `output`.
    package func sendText(_ text: String, into output: inout [UInt8]) throws(WebSocketSendError) {
        try checkCanSend()
        encoder.encodeText(text, masked: role.masksOutgoingFrames, into: &output)
    }

    /// Appends a text message frame whose payload is `utf8` (the caller guarantees valid UTF-8).
    package func sendText(utf8: [UInt8], into output: inout [UInt8]) throws(WebSocketSendError) {
        try checkCanSend()
        utf8.withUnsafeBytes { encoder.encodeFrame(opcode: .text, payload: $0, masked: role.masksOutgoingFrames, into: &output) }
    }

    /// Appends a binary message frame to `output`.
    package func sendBinary(_ bytes: [UInt8], into output: inout [UInt8]) throws(WebSocketSendError) {
        try checkCanSend()
        encoder.encodeBinary(bytes, masked: role.masksOutgoingFrames, into: &output)
    }

    /// Appends a ping (payload at most 125 bytes) to `output`.
    package func sendPing(_ payload: [UInt8] = [], into output: inout [UInt8]) throws(WebSocketSendError) {
        try checkCanSend()
        encoder.encodePing(payload, masked: role.masksOutgoingFrames, into: &output)
    }

    /// Starts the close handshake: appends a close frame and stops further data. Returns
    /// false (and writes nothing) when a close frame was already sent. Wait for the peer's
    /// close (a ``WebSocketReceiveResult`` with `closeSocket`) or a timeout, then close the socket.
    @discardableResult
    package mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "", into output: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        encoder.encodeClose(code: code, reason: reason, masked: role.masksOutgoingFrames, into: &output)
        state = .closeSent
        return true
    }

    private func checkCanSend() throws(WebSocketSendError) {
        switch state {
        case .open: return
        case .closeSent: throw .closing
        case .closed: throw .closed
        }
    }

    private mutating func fail(with error: WebSocketProtocolError, into result: inout WebSocketReceiveResult) {
        if state == .open {
            encoder.encodeClose(code: error.closeCode, reason: error.description, masked: role.masksOutgoingFrames, into: &result.bytesToWrite)
        }
        state = .closed
        result.closeSocket = true
        result.error = error
    }
}
