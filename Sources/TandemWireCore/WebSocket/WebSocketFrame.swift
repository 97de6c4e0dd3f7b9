/// One decoded WebSocket frame with its payload already unmasked.
///
/// Reserved bits are not represented: Tandem negotiates no extension, so a frame with any of
/// them set never gets this far (it fails the connection with 1002).
package struct WebSocketFrame: Sendable, Equatable {
    /// True on the last frame of a message (always true for control frames).
    package var fin: Bool
    /// What the frame carries.
    package var opcode: WebSocketOpcode
    /// The application data, unmasked.
    package var payload: [UInt8]

    /// Creates a frame value.
    package init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }
}
